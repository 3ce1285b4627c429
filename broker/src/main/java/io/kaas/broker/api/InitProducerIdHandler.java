package io.kaas.broker.api;

import io.kaas.broker.cluster.ProducerIdAllocator;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId for idempotent producers: a fresh id (epoch 0), or, when a producer re-initialises
 * with its id and epoch (KIP-360, after an unknown-sequence error), the same id with the epoch bumped.
 * Transactions are not served: a transactional id gets a fatal error naming that.
 */
public final class InitProducerIdHandler implements ApiHandler<InitProducerIdRequestData> {
    private final ProducerIdAllocator ids;

    public InitProducerIdHandler(ProducerIdAllocator ids) {
        this.ids = ids;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, InitProducerIdRequestData request) {
        InitProducerIdResponseData response = new InitProducerIdResponseData().setProducerId(-1).setProducerEpoch((short) -1);
        if (request.transactionalId() != null) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
        }
        if (request.producerId() >= 0 && request.producerEpoch() >= 0 && request.producerEpoch() < Short.MAX_VALUE - 1) {
            return CompletableFuture.completedFuture(response.setProducerId(request.producerId())
                    .setProducerEpoch((short) (request.producerEpoch() + 1)));
        }
        return CompletableFuture.completedFuture(response.setProducerId(ids.allocate()).setProducerEpoch((short) 0));
    }
}
