package io.kaas.broker.api;

import io.kaas.broker.feature.FinalizedFeatures;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.io.StorageException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.UpdateFeaturesRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.UpdateFeaturesResponse;

/**
 * UpdateFeatures (KIP-584; {@code Admin.updateFeatures}, {@code kafka-features.sh upgrade|downgrade}): what
 * Apache's controller answers a single node, over {@link FinalizedFeatures}. ALTER on the cluster is needed. v0
 * names a downgrade with {@code allow_downgrade} (a safe downgrade), v1+ with its upgrade type and may only
 * validate; v2 answers with the top-level error alone (the per-feature results are not in its schema).
 */
public final class UpdateFeaturesHandler implements ApiHandler<UpdateFeaturesRequestData> {
    private final FinalizedFeatures features;

    public UpdateFeaturesHandler(FinalizedFeatures features) {
        this.features = features;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, UpdateFeaturesRequestData request) {
        Map<String, Short> updates = new LinkedHashMap<>();
        Map<String, FeatureUpdate.UpgradeType> types = new HashMap<>();
        for (UpdateFeaturesRequestData.FeatureUpdateKey u : request.featureUpdates()) {
            updates.put(u.feature(), u.maxVersionLevel());
            types.put(
                    u.feature(),
                    ctx.apiVersion() == 0
                            ? (u.allowDowngrade()
                                    ? FeatureUpdate.UpgradeType.SAFE_DOWNGRADE
                                    : FeatureUpdate.UpgradeType.UPGRADE)
                            : FeatureUpdate.UpgradeType.fromCode(u.upgradeType()));
        }
        ApiError error;
        if (!ctx.allowedOnCluster(AclOperation.ALTER)) {
            error = new ApiError(Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.CLUSTER_AUTHORIZATION_FAILED.message());
        } else {
            try {
                error = features.update(updates, types, ctx.apiVersion() >= 1 && request.validateOnly());
            } catch (StorageException e) {
                error = new ApiError(ErrorMapping.toKafka(e.kind()), e.getMessage());
            }
        }
        return CompletableFuture.completedFuture(UpdateFeaturesResponse.createWithErrors(error, updates.keySet(), 0)
                .data());
    }
}
