package io.kaas.broker.api;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/** ApiVersions: exactly the APIs and versions registered with the invoker. */
public final class ApiVersionsHandler implements ApiHandler<ApiVersionsRequestData> {
    private final ServedApis served;

    public ApiVersionsHandler(ServedApis served) {
        this.served = served;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiVersionsRequestData request) {
        return CompletableFuture.completedFuture(new ApiVersionsResponseData()
                .setErrorCode((short) 0)
                .setApiKeys(served.toApiVersions()));
    }
}
