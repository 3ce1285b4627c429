package io.kaas.broker.feature;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.controller.QuorumFeatures;
import org.apache.kafka.metadata.VersionRange;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.KRaftVersion;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * Apache 4.4's controller rules for an UpdateFeatures request ({@code FeatureControlManager.updateFeatures},
 * whose methods are not public), over kaas's supported ranges: every update is checked against what this node
 * supports ({@link QuorumFeatures#reasonNotLocallySupported}, Apache's messages), a lower level needs
 * SAFE_DOWNGRADE or UNSAFE_DOWNGRADE, metadata.version may go down only where no metadata changed between the two
 * levels ({@link MetadataVersion#checkIfMetadataChanged}; an unsafe downgrade is refused as in Apache 4.4), kraft
 * version never goes down, and other features must satisfy their dependencies ({@link Feature#validateVersion}).
 * One failing update fails the request and nothing changes. Errors are INVALID_UPDATE_VERSION as in Apache.
 */
public final class FeatureUpdateRules {
    private final QuorumFeatures local;

    FeatureUpdateRules(int nodeId, Map<String, VersionRange> supported) {
        this.local = new QuorumFeatures(nodeId, supported, List.of(nodeId));
    }

    /**
     * The levels after {@code updates} (feature name to its new level, 0 removes it) of {@code current}, or the
     * error Apache's controller answers.
     */
    Result apply(Map<String, Short> current, Map<String, Short> updates, Map<String, FeatureUpdate.UpgradeType> types) {
        Map<String, Short> proposed = new TreeMap<>(current);
        proposed.putAll(updates);
        for (Map.Entry<String, Short> u : updates.entrySet()) {
            ApiError error = check(
                    u.getKey(),
                    u.getValue(),
                    types.getOrDefault(u.getKey(), FeatureUpdate.UpgradeType.UPGRADE),
                    current,
                    proposed);
            if (error.isFailure()) {
                return new Result(current, error);
            }
        }
        Map<String, Short> next = new LinkedHashMap<>();
        proposed.forEach((name, level) -> {
            if (level > 0) {
                next.put(name, level);
            }
        });
        return new Result(Map.copyOf(next), ApiError.NONE);
    }

    /** The levels a request leaves, and its answer (on an error, the levels it found). */
    record Result(Map<String, Short> levels, ApiError error) {}

    private ApiError check(
            String name,
            short level,
            FeatureUpdate.UpgradeType type,
            Map<String, Short> current,
            Map<String, Short> proposed) {
        if (type == FeatureUpdate.UpgradeType.UNKNOWN) {
            return invalidUpdateVersion(name, level, "The controller does not support the given upgrade type.");
        }
        short currentLevel = current.getOrDefault(name, (short) 0);
        if (level < 0) {
            return invalidUpdateVersion(name, level, "A feature version cannot be less than 0.");
        }
        Optional<String> notSupported = local.reasonNotLocallySupported(name, level);
        if (notSupported.isPresent()) {
            return invalidUpdateVersion(name, level, notSupported.get());
        }
        if (level < currentLevel && type == FeatureUpdate.UpgradeType.UPGRADE) {
            return invalidUpdateVersion(
                    name,
                    level,
                    "Can't downgrade the version of this feature without setting the upgrade type to either safe"
                            + " or unsafe downgrade.");
        }
        if (name.equals(MetadataVersion.FEATURE_NAME)) {
            return metadataVersion(currentLevel, level, type == FeatureUpdate.UpgradeType.UNSAFE_DOWNGRADE);
        }
        if (name.equals(KRaftVersion.FEATURE_NAME)) {
            return type == FeatureUpdate.UpgradeType.UPGRADE
                    ? ApiError.NONE
                    : invalidUpdateVersion(name, level, "Can't downgrade the version of this feature.");
        }
        try {
            Map<String, Short> others = new HashMap<>(proposed);
            Feature.validateVersion(Feature.featureFromName(name).fromFeatureLevel(level, true), others);
            return ApiError.NONE;
        } catch (IllegalArgumentException e) {
            return invalidUpdateVersion(name, level, e.getMessage());
        }
    }

    private static ApiError metadataVersion(short currentLevel, short level, boolean unsafe) {
        MetadataVersion next;
        try {
            next = MetadataVersion.fromFeatureLevel(level);
        } catch (IllegalArgumentException e) {
            return invalidMetadataVersion(level, "Unknown metadata.version.");
        }
        if (next.isLessThan(MetadataVersion.MINIMUM_VERSION)) {
            return invalidMetadataVersion(
                    level, "Unable to set a metadata.version less than " + MetadataVersion.MINIMUM_VERSION);
        }
        MetadataVersion now = MetadataVersion.fromFeatureLevel(currentLevel);
        if (next.isLessThan(now) && MetadataVersion.checkIfMetadataChanged(now, next)) {
            return invalidMetadataVersion(
                    level,
                    unsafe
                            ? "Unsafe metadata downgrade is not supported in this version."
                            : "Refusing to perform the requested downgrade because it might delete metadata"
                                    + " information.");
        }
        return ApiError.NONE;
    }

    private static ApiError invalidUpdateVersion(String feature, short version, String message) {
        return new ApiError(
                Errors.INVALID_UPDATE_VERSION,
                String.format("Invalid update version %d for feature %s. %s", version, feature, message));
    }

    private static ApiError invalidMetadataVersion(short version, String message) {
        return new ApiError(
                Errors.INVALID_UPDATE_VERSION, String.format("Invalid metadata.version %d. %s", version, message));
    }
}
