package io.kaas.broker.api;

import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionErrors;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * EndTxn: commit or abort. Answered once every marker is fsynced and the COMPLETE_* state is written.
 * Served up to v4: v5 belongs to transaction protocol v2 (KIP-890 part 2), not served.
 */
public final class EndTxnHandler implements ApiHandler<EndTxnRequestData> {
    public static final int MAX_VERSION = 4;
    private static final int FIRST_PRODUCER_FENCED_VERSION = 2;

    private final TransactionCoordinator txns;

    public EndTxnHandler(TransactionCoordinator txns) {
        this.txns = txns;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, EndTxnRequestData request) {
        return txns.endTxn(request.transactionalId(), request.producerId(), request.producerEpoch(), request.committed())
                .thenApply(e -> new EndTxnResponseData()
                        .setErrorCode(TransactionErrors.forVersion(e, ctx.apiVersion(), FIRST_PRODUCER_FENCED_VERSION).code()));
    }
}
