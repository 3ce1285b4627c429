package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.errors.InvalidUpdateVersionException;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Feature levels (KIP-584) through kafka-clients' Admin and Apache's kafka-features: a single Apache node's
 * levels, changes by Apache's controller rules and messages, validate-only, a new epoch per change, and
 * durability across a restart. One broker for the class; each test puts back what it changes.
 */
class FeaturesIT {
    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() {
        b = new TestBroker(dir.resolve("data"));
    }

    @AfterAll
    static void stop() {
        b.close();
    }

    private static FeatureMetadata describe(Admin admin) throws Exception {
        return admin.describeFeatures().featureMetadata().get();
    }

    private static short finalized(FeatureMetadata f, String feature) {
        return f.finalizedFeatures().get(feature).maxVersionLevel();
    }

    @Test
    void aDowngradeIsValidatedThenWrittenUnderANewEpochAndSurvivesARestart() throws Exception {
        try (Admin admin = b.admin()) {
            FeatureMetadata before = describe(admin);
            assertThat(finalized(before, "transaction.version")).isEqualTo((short) 2);
            Map<String, FeatureUpdate> toV1 = Map.of(
                    "transaction.version", new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE));
            admin.updateFeatures(toV1, new UpdateFeaturesOptions().validateOnly(true))
                    .all()
                    .get();
            assertThat(finalized(describe(admin), "transaction.version")).isEqualTo((short) 2);
            admin.updateFeatures(toV1).all().get();
        }
        try (Admin admin = b.admin()) { // a new connection: ApiVersions answered after the change
            FeatureMetadata after = describe(admin);
            assertThat(finalized(after, "transaction.version")).isEqualTo((short) 1);
            assertThat(after.finalizedFeaturesEpoch()).isPresent();
        }
        assertThat(Files.readString(b.dataDir().resolve("__cluster/features.json")))
                .contains("\"transaction.version\":1");
        b.restart();
        try (Admin admin = b.admin()) {
            assertThat(finalized(describe(admin), "transaction.version")).isEqualTo((short) 1);
            admin.updateFeatures(Map.of(
                            "transaction.version", new FeatureUpdate((short) 2, FeatureUpdate.UpgradeType.UPGRADE)))
                    .all()
                    .get();
        }
        try (Admin admin = b.admin()) {
            assertThat(finalized(describe(admin), "transaction.version")).isEqualTo((short) 2);
        }
    }

    @Test
    void refusedUpdatesCarryApachesErrorAndMessage() throws Exception {
        try (Admin admin = b.admin()) {
            assertThatThrownBy(() -> admin.updateFeatures(Map.of(
                                    "no.such.feature", new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.UPGRADE)))
                            .all()
                            .get())
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(InvalidUpdateVersionException.class)
                    .hasMessage("Invalid update version 1 for feature no.such.feature. Local controller 0 does not"
                            + " support this feature.");
            short older = MetadataVersion.IBP_4_0_IV3.featureLevel();
            assertThatThrownBy(() -> admin.updateFeatures(Map.of(
                                    "metadata.version",
                                    new FeatureUpdate(older, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)))
                            .all()
                            .get())
                    .cause()
                    .isInstanceOf(InvalidUpdateVersionException.class)
                    .hasMessage("Invalid metadata.version " + older + ". Refusing to perform the requested downgrade"
                            + " because it might delete metadata information.");
            short previous = MetadataVersion.IBP_4_4_IV1.featureLevel();
            assertThatThrownBy(() -> admin.updateFeatures(Map.of(
                                    "metadata.version", new FeatureUpdate(previous, FeatureUpdate.UpgradeType.UPGRADE)))
                            .all()
                            .get())
                    .cause()
                    .isInstanceOf(InvalidUpdateVersionException.class)
                    .hasMessageContaining("Can't downgrade the version of this feature without setting the upgrade"
                            + " type to either safe or unsafe downgrade.");
            assertThat(finalized(describe(admin), "metadata.version"))
                    .isEqualTo(MetadataVersion.LATEST_PRODUCTION.featureLevel());
        }
    }

    @Test
    void kafkaFeaturesDescribesDowngradesAndUpgrades() throws Exception {
        String bs = b.bootstrap();
        String described = tool("--bootstrap-server", bs, "describe").out().replaceAll("[ \\t]+", " ");
        assertThat(described)
                .contains(
                        "Feature: metadata.version SupportedMinVersion: 3.3-IV3 SupportedMaxVersion: "
                                + MetadataVersion.LATEST_PRODUCTION.version(),
                        "Feature: group.version SupportedMinVersion: 1 SupportedMaxVersion: 1 FinalizedVersionLevel: 1",
                        "Feature: eligible.leader.replicas.version SupportedMinVersion: 0 SupportedMaxVersion: 1"
                                + " FinalizedVersionLevel: 1",
                        "Feature: share.version",
                        "Feature: streams.version",
                        "Feature: kraft.version");
        String dry = tool(
                        "--bootstrap-server",
                        bs,
                        "downgrade",
                        "--feature",
                        "eligible.leader.replicas.version=0",
                        "--dry-run")
                .out();
        assertThat(dry).contains("eligible.leader.replicas.version can be downgraded to 0.");
        assertThat(tool("--bootstrap-server", bs, "downgrade", "--feature", "eligible.leader.replicas.version=0")
                        .out())
                .contains("eligible.leader.replicas.version was downgraded to 0.");
        assertThat(tool("--bootstrap-server", bs, "describe").out().replaceAll("[ \\t]+", " "))
                .contains("Feature: eligible.leader.replicas.version SupportedMinVersion: 0 SupportedMaxVersion: 1"
                        + " FinalizedVersionLevel: 0");
        assertThat(tool("--bootstrap-server", bs, "upgrade", "--feature", "eligible.leader.replicas.version=1")
                        .out())
                .contains("eligible.leader.replicas.version was upgraded to 1.");
        ExternalProcess refused = ExternalProcess.java(
                dir,
                null,
                "org.apache.kafka.tools.FeatureCommand",
                "--bootstrap-server",
                bs,
                "downgrade",
                "--feature",
                "group.version=0");
        assertThat(refused.exitCode()).as("%s", refused).isNotZero();
        assertThat(refused.out() + refused.err())
                .contains("Invalid update version 0 for feature group.version. Local controller 0 only supports"
                        + " versions 1");
    }

    private static ExternalProcess tool(String... args) throws Exception {
        ExternalProcess p = ExternalProcess.java(dir, null, "org.apache.kafka.tools.FeatureCommand", args);
        assertThat(p.exitCode())
                .as("%s %s%n%s", "kafka-features", List.of(args), p)
                .isZero();
        return p;
    }
}
