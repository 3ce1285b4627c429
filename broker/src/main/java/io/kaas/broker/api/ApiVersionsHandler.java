package io.kaas.broker.api;

import io.kaas.broker.feature.FinalizedFeatures;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.ServedApis;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ApiVersions: exactly the APIs and versions registered with the invoker, and (v3+) the features kaas
 * supports and the levels finalized in the data directory with their epoch (KIP-584; see
 * {@link FinalizedFeatures}): Admin.describeFeatures (kafka-features.sh describe) reads this answer, 4.x
 * producers use transaction protocol v2 (KIP-890 part 2) when transaction.version is 2, and consumers with
 * group.protocol=consumer check group.version. A v3+ request names the client's software (KIP-511), which
 * client-metrics subscriptions match on (KIP-714): it is kept on the connection.
 */
public final class ApiVersionsHandler implements ApiHandler<ApiVersionsRequestData> {
    private final ServedApis served;
    private final FinalizedFeatures features;

    public ApiVersionsHandler(ServedApis served, FinalizedFeatures features) {
        this.served = served;
        this.features = features;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiVersionsRequestData request) {
        if (ctx.session() != null && ctx.apiVersion() >= 3) {
            ctx.session().clientSoftware(request.clientSoftwareName(), request.clientSoftwareVersion());
        }
        FinalizedFeatures.Levels levels = features.levels();
        ApiVersionsResponseData response = new ApiVersionsResponseData()
                .setErrorCode((short) 0)
                .setApiKeys(served.toApiVersions())
                .setFinalizedFeaturesEpoch(levels.epoch());
        FinalizedFeatures.supported()
                .forEach((name, range) -> response.supportedFeatures()
                        .add(new ApiVersionsResponseData.SupportedFeatureKey()
                                .setName(name)
                                .setMinVersion(range.min())
                                .setMaxVersion(range.max())));
        levels.levels()
                .forEach((name, level) -> response.finalizedFeatures()
                        .add(new ApiVersionsResponseData.FinalizedFeatureKey()
                                .setName(name)
                                .setMinVersionLevel(level)
                                .setMaxVersionLevel(level)));
        return CompletableFuture.completedFuture(response);
    }
}
