package io.kaas.broker.api;

import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.ServedApis;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.server.common.GroupVersion;
import org.apache.kafka.server.common.MetadataVersion;
import org.apache.kafka.server.common.TransactionVersion;

/**
 * ApiVersions: exactly the APIs and versions registered with the invoker, and (v3+) the feature
 * levels a single Apache 4.4 node finalizes that kaas honours (KIP-584): metadata.version at Apache's
 * latest production level, and group.version 1 (KIP-848: the consumer group protocol is served; clients
 * with group.protocol=consumer check it), and transaction.version at the level {@code kaas serve
 * --transaction-version} sets (1 or 2): 4.x producers use transaction protocol v2 (KIP-890 part 2) when it
 * is 2. Admin.describeFeatures (kafka-features.sh describe) reads this answer.
 */
public final class ApiVersionsHandler implements ApiHandler<ApiVersionsRequestData> {
    /** The feature epoch Apache takes from its metadata log; kaas's features never change, so it stays 0. */
    static final long FINALIZED_FEATURES_EPOCH = 0;

    private final ServedApis served;
    private final TransactionVersion transactionVersion;

    public ApiVersionsHandler(ServedApis served, short transactionVersion) {
        this.served = served;
        this.transactionVersion = TransactionVersion.fromFeatureLevel(transactionVersion);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiVersionsRequestData request) {
        ApiVersionsResponseData response = new ApiVersionsResponseData()
                .setErrorCode((short) 0)
                .setApiKeys(served.toApiVersions())
                .setFinalizedFeaturesEpoch(FINALIZED_FEATURES_EPOCH);
        MetadataVersion latest = MetadataVersion.LATEST_PRODUCTION;
        response.supportedFeatures()
                .add(new ApiVersionsResponseData.SupportedFeatureKey()
                        .setName(MetadataVersion.FEATURE_NAME)
                        .setMinVersion(MetadataVersion.MINIMUM_VERSION.featureLevel())
                        .setMaxVersion(latest.featureLevel()));
        response.finalizedFeatures()
                .add(new ApiVersionsResponseData.FinalizedFeatureKey()
                        .setName(MetadataVersion.FEATURE_NAME)
                        .setMinVersionLevel(latest.featureLevel())
                        .setMaxVersionLevel(latest.featureLevel()));
        GroupVersion group = GroupVersion.GV_1;
        response.supportedFeatures()
                .add(new ApiVersionsResponseData.SupportedFeatureKey()
                        .setName(GroupVersion.FEATURE_NAME)
                        .setMinVersion((short) 0)
                        .setMaxVersion(group.featureLevel()));
        response.finalizedFeatures()
                .add(new ApiVersionsResponseData.FinalizedFeatureKey()
                        .setName(GroupVersion.FEATURE_NAME)
                        .setMinVersionLevel(group.featureLevel())
                        .setMaxVersionLevel(group.featureLevel()));
        response.supportedFeatures()
                .add(new ApiVersionsResponseData.SupportedFeatureKey()
                        .setName(TransactionVersion.FEATURE_NAME)
                        .setMinVersion((short) 0)
                        .setMaxVersion(TransactionVersion.TV_2.featureLevel()));
        response.finalizedFeatures()
                .add(new ApiVersionsResponseData.FinalizedFeatureKey()
                        .setName(TransactionVersion.FEATURE_NAME)
                        .setMinVersionLevel(transactionVersion.featureLevel())
                        .setMaxVersionLevel(transactionVersion.featureLevel()));
        return CompletableFuture.completedFuture(response);
    }
}
