package io.kaas.broker.api;

import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionErrors;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId. Idempotent producers: a fresh id (epoch 0), or, when a producer re-initialises with its
 * id and epoch (KIP-360, after an unknown-sequence error), the same id with the epoch bumped.
 * Transactional producers: the {@link TransactionCoordinator} bumps the epoch of the transactional id,
 * fencing older sessions. KIP-939's two-phase commit (v6 enable_2pc) is not served.
 */
public final class InitProducerIdHandler implements ApiHandler<InitProducerIdRequestData> {
    private static final int FIRST_PRODUCER_FENCED_VERSION = 4;

    private final ProducerIdAllocator ids;
    private final TransactionCoordinator txns;

    public InitProducerIdHandler(ProducerIdAllocator ids, TransactionCoordinator txns) {
        this.ids = ids;
        this.txns = txns;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, InitProducerIdRequestData request) {
        InitProducerIdResponseData response =
                new InitProducerIdResponseData().setProducerId(-1).setProducerEpoch((short) -1);
        if (request.transactionalId() != null) {
            if (request.transactionalId().isEmpty() || request.keepPreparedTxn()) {
                return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REQUEST.code()));
            }
            if (request.enable2Pc()) {
                // Apache refuses 2PC unless transaction.two.phase.commit.enable is set; kaas never sets it.
                return CompletableFuture.completedFuture(
                        response.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
            }
            TransactionCoordinator.InitResult r = txns.initProducerId(
                    request.transactionalId(),
                    request.transactionTimeoutMs(),
                    request.producerId(),
                    request.producerEpoch());
            return CompletableFuture.completedFuture(response.setErrorCode(
                            TransactionErrors.forVersion(r.error(), ctx.apiVersion(), FIRST_PRODUCER_FENCED_VERSION)
                                    .code())
                    .setProducerId(r.producerId())
                    .setProducerEpoch(r.producerEpoch()));
        }
        if (request.producerId() >= 0
                && request.producerEpoch() >= 0
                && request.producerEpoch() < Short.MAX_VALUE - 1) {
            return CompletableFuture.completedFuture(response.setProducerId(request.producerId())
                    .setProducerEpoch((short) (request.producerEpoch() + 1)));
        }
        return CompletableFuture.completedFuture(
                response.setProducerId(ids.allocate()).setProducerEpoch((short) 0));
    }
}
