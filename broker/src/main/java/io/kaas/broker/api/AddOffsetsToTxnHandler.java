package io.kaas.broker.api;

import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionErrors;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** AddOffsetsToTxn: the group's offsets join the transaction, so TxnOffsetCommit may stage them. */
public final class AddOffsetsToTxnHandler implements ApiHandler<AddOffsetsToTxnRequestData> {
    private static final int FIRST_PRODUCER_FENCED_VERSION = 2;

    private final TransactionCoordinator txns;

    public AddOffsetsToTxnHandler(TransactionCoordinator txns) {
        this.txns = txns;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, AddOffsetsToTxnRequestData request) {
        Errors e = request.groupId().isEmpty()
                ? Errors.INVALID_GROUP_ID
                : txns.addOffsets(
                        request.transactionalId(), request.producerId(), request.producerEpoch(), request.groupId());
        return CompletableFuture.completedFuture(new AddOffsetsToTxnResponseData()
                .setErrorCode(TransactionErrors.forVersion(e, ctx.apiVersion(), FIRST_PRODUCER_FENCED_VERSION)
                        .code()));
    }
}
