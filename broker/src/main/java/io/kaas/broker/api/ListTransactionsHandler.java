package io.kaas.broker.api;

import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionRecord;
import io.kaas.broker.txn.TxnState;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListTransactions (KIP-664; v1 duration filter, KIP-994; v2 transactional-id pattern, KIP-1152): every
 * transactional id the coordinator holds, filtered by state names, producer ids, how long the
 * transaction has been running and a regular expression on the id.
 */
public final class ListTransactionsHandler implements ApiHandler<ListTransactionsRequestData> {
    private final TransactionCoordinator txns;

    public ListTransactionsHandler(TransactionCoordinator txns) {
        this.txns = txns;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ListTransactionsRequestData request) {
        ListTransactionsResponseData response = new ListTransactionsResponseData();
        Set<String> known =
                Arrays.stream(TxnState.values()).map(TxnState::wireName).collect(Collectors.toSet());
        Set<String> states = new HashSet<>();
        for (String s : request.stateFilters()) {
            (known.contains(s) ? states : response.unknownStateFilters()).add(s);
        }
        Pattern pattern;
        try {
            String p = request.transactionalIdPattern();
            pattern = p == null || p.isEmpty() ? null : Pattern.compile(p);
        } catch (PatternSyntaxException e) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
        }
        Set<Long> producerIds = new HashSet<>(request.producerIdFilters());
        long now = System.currentTimeMillis();
        for (TransactionRecord r : txns.all()) {
            if (!states.isEmpty() && !states.contains(r.state().wireName())
                    || !producerIds.isEmpty() && !producerIds.contains(r.producerId())
                    || request.durationFilter() >= 0
                            && (r.startTimestamp() < 0 || now - r.startTimestamp() < request.durationFilter())
                    || pattern != null && !pattern.matcher(r.transactionalId()).matches()
                    // Apache lists only the ids the principal may DESCRIBE.
                    || !ctx.allowed(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, r.transactionalId())) {
                continue;
            }
            response.transactionStates()
                    .add(new ListTransactionsResponseData.TransactionState()
                            .setTransactionalId(r.transactionalId())
                            .setProducerId(r.producerId())
                            .setTransactionState(r.state().wireName()));
        }
        return CompletableFuture.completedFuture(response);
    }
}
