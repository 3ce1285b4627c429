package io.kaas.broker.feature;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.clients.admin.FeatureUpdate.UpgradeType;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.Test;

/** Apache's controller rules for UpdateFeatures over kaas's supported ranges, with Apache's messages. */
class FeatureUpdateRulesTest {
    private static final short LATEST = MetadataVersion.LATEST_PRODUCTION.featureLevel();
    private final FeatureUpdateRules rules = new FeatureUpdateRules(1, FinalizedFeatures.supported());
    private final Map<String, Short> current =
            Map.of("metadata.version", LATEST, "transaction.version", (short) 2, "group.version", (short) 1);

    private FeatureUpdateRules.Result apply(String feature, int level, UpgradeType type) {
        return rules.apply(current, Map.of(feature, (short) level), Map.of(feature, type));
    }

    @Test
    void anUnknownFeatureOrALevelOutOfRangeIsInvalidUpdateVersion() {
        FeatureUpdateRules.Result unknown = apply("no.such.feature", 1, UpgradeType.UPGRADE);
        assertThat(unknown.error().error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
        assertThat(unknown.error().message())
                .isEqualTo("Invalid update version 1 for feature no.such.feature. Local controller 1 does not"
                        + " support this feature.");
        assertThat(unknown.levels()).isEqualTo(current);
        assertThat(apply("transaction.version", 3, UpgradeType.UPGRADE).error().message())
                .isEqualTo("Invalid update version 3 for feature transaction.version. Local controller 1 only"
                        + " supports versions 0-2");
        // kaas serves KIP-848 groups whatever the level: it supports group.version 1 only.
        assertThat(apply("group.version", 0, UpgradeType.SAFE_DOWNGRADE).error().message())
                .isEqualTo("Invalid update version 0 for feature group.version. Local controller 1 only supports"
                        + " versions 1");
    }

    @Test
    void aLowerLevelNeedsADowngradeTypeAndLevelZeroRemovesTheFeature() {
        assertThat(apply("transaction.version", 1, UpgradeType.UPGRADE).error().message())
                .isEqualTo("Invalid update version 1 for feature transaction.version. Can't downgrade the version of"
                        + " this feature without setting the upgrade type to either safe or unsafe downgrade.");
        FeatureUpdateRules.Result down = apply("transaction.version", 1, UpgradeType.SAFE_DOWNGRADE);
        assertThat(down.error().isSuccess()).isTrue();
        assertThat(down.levels()).containsEntry("transaction.version", (short) 1);
        FeatureUpdateRules.Result removed = apply("transaction.version", 0, UpgradeType.SAFE_DOWNGRADE);
        assertThat(removed.levels()).doesNotContainKey("transaction.version").containsKey("group.version");
        assertThat(apply("kraft.version", 1, UpgradeType.SAFE_DOWNGRADE).error().message())
                .isEqualTo("Invalid update version 1 for feature kraft.version. Can't downgrade the version of this"
                        + " feature.");
        assertThat(apply("transaction.version", 1, UpgradeType.UNKNOWN).error().message())
                .isEqualTo("Invalid update version 1 for feature transaction.version. The controller does not"
                        + " support the given upgrade type.");
    }

    @Test
    void metadataVersionGoesDownOnlyWhereNoMetadataChanged() {
        MetadataVersion changedFrom = MetadataVersion.IBP_4_0_IV3;
        assertThat(MetadataVersion.checkIfMetadataChanged(MetadataVersion.LATEST_PRODUCTION, changedFrom))
                .isTrue();
        assertThat(apply("metadata.version", changedFrom.featureLevel(), UpgradeType.SAFE_DOWNGRADE)
                        .error()
                        .message())
                .isEqualTo("Invalid metadata.version " + changedFrom.featureLevel() + ". Refusing to perform the"
                        + " requested downgrade because it might delete metadata information.");
        assertThat(apply("metadata.version", changedFrom.featureLevel(), UpgradeType.UNSAFE_DOWNGRADE)
                        .error()
                        .message())
                .isEqualTo("Invalid metadata.version " + changedFrom.featureLevel()
                        + ". Unsafe metadata downgrade is not supported in this version.");
        // 4.2-IV1 changed no metadata since 4.2-IV0: that downgrade is safe.
        Map<String, Short> at42 = Map.of("metadata.version", MetadataVersion.IBP_4_2_IV1.featureLevel());
        FeatureUpdateRules.Result safe = rules.apply(
                at42,
                Map.of("metadata.version", MetadataVersion.IBP_4_2_IV0.featureLevel()),
                Map.of("metadata.version", UpgradeType.SAFE_DOWNGRADE));
        assertThat(safe.error().isSuccess()).as(safe.error().toString()).isTrue();
        assertThat(safe.levels()).containsEntry("metadata.version", MetadataVersion.IBP_4_2_IV0.featureLevel());
        assertThat(MetadataVersion.checkIfMetadataChanged(MetadataVersion.IBP_4_2_IV1, MetadataVersion.IBP_4_2_IV0))
                .isFalse();
    }

    @Test
    void aFeatureLevelNeedsTheMetadataVersionItDependsOn() {
        Map<String, Short> old = Map.of("metadata.version", MetadataVersion.IBP_3_9_IV0.featureLevel());
        FeatureUpdateRules.Result elr = rules.apply(
                old,
                Map.of("eligible.leader.replicas.version", (short) 1),
                Map.of("eligible.leader.replicas.version", UpgradeType.UPGRADE));
        assertThat(elr.error().error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
        assertThat(elr.error().message())
                .isEqualTo("Invalid update version 1 for feature eligible.leader.replicas.version."
                        + " eligible.leader.replicas.version could not be set to 1 because it depends on"
                        + " metadata.version level 23");
    }
}
