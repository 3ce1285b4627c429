package io.kaas.broker.api;

import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionErrors;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * EndTxn: commit or abort. Answered once every marker is fsynced and the COMPLETE_* state is written.
 * v5 is transaction protocol v2 (KIP-890 part 2): the end bumps the epoch and answers the producer id and
 * epoch of the next transaction. The version decides, as in Apache; clients send v5 only when the finalized
 * {@code transaction.version} is 2.
 */
public final class EndTxnHandler implements ApiHandler<EndTxnRequestData> {
    public static final int MAX_VERSION = 5;
    private static final int FIRST_PRODUCER_FENCED_VERSION = 2;
    private static final int FIRST_V2_VERSION = 5;

    private final TransactionCoordinator txns;

    public EndTxnHandler(TransactionCoordinator txns) {
        this.txns = txns;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, EndTxnRequestData request) {
        return txns.endTxn(
                        request.transactionalId(),
                        request.producerId(),
                        request.producerEpoch(),
                        request.committed(),
                        ctx.apiVersion() >= FIRST_V2_VERSION)
                .thenApply(r -> new EndTxnResponseData()
                        .setErrorCode(
                                TransactionErrors.forVersion(r.error(), ctx.apiVersion(), FIRST_PRODUCER_FENCED_VERSION)
                                        .code())
                        .setProducerId(r.producerId())
                        .setProducerEpoch(r.producerEpoch()));
    }
}
