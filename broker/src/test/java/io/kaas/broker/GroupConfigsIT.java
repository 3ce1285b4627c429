package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group configs (ConfigResource GROUP) through kafka-clients' Admin and Apache's kafka-configs: Apache's
 * names, defaults and validation messages, the value's source, and durability across a restart. One
 * broker for the class.
 */
class GroupConfigsIT {
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

    private static Config describe(Admin admin, String group) throws Exception {
        ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
        return admin.describeConfigs(List.of(res), new DescribeConfigsOptions().includeSynonyms(true))
                .all()
                .get()
                .get(res);
    }

    private static void set(Admin admin, String group, String name, String value) throws Exception {
        ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
        admin.incrementalAlterConfigs(
                        Map.of(res, List.of(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET))))
                .all()
                .get();
    }

    @Test
    void everyPublicGroupConfigIsDescribedWithApacheDefaults() throws Exception {
        try (Admin admin = b.admin()) {
            Config c = describe(admin, "fresh-group");
            Map<String, ConfigEntry> byName = c.entries().stream().collect(Collectors.toMap(ConfigEntry::name, e -> e));
            Set<String> expected = GroupConfig.configNames().stream()
                    .filter(n -> !GroupConfig.isInternal(n))
                    .collect(Collectors.toSet());
            assertThat(byName.keySet()).isEqualTo(expected);
            assertThat(byName.get("share.auto.offset.reset").value()).isEqualTo("latest");
            assertThat(byName.get("share.record.lock.duration.ms").value()).isEqualTo("30000");
            assertThat(byName.get("share.delivery.count.limit").value()).isEqualTo("5");
            assertThat(byName.get("share.isolation.level").value()).isEqualTo("read_uncommitted");
            assertThat(byName.get("share.auto.offset.reset").source())
                    .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        }
    }

    @Test
    void setDeleteAndSourceOfAGroupConfig() throws Exception {
        try (Admin admin = b.admin()) {
            set(admin, "share-app", "share.auto.offset.reset", "earliest");
            ConfigEntry e = describe(admin, "share-app").get("share.auto.offset.reset");
            assertThat(e.value()).isEqualTo("earliest");
            assertThat(e.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG);
            ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, "share-app");
            admin.incrementalAlterConfigs(Map.of(
                            res,
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("share.auto.offset.reset", ""), AlterConfigOp.OpType.DELETE))))
                    .all()
                    .get();
            assertThat(describe(admin, "share-app")
                            .get("share.auto.offset.reset")
                            .value())
                    .isEqualTo("latest");
        }
    }

    @Test
    void apacheValidationRejectsBadValuesAndNames() throws Exception {
        try (Admin admin = b.admin()) {
            assertThatThrownBy(() -> set(admin, "bad", "share.auto.offset.reset", "sometimes"))
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("The value must be either 'earliest', 'latest'");
            assertThatThrownBy(() -> set(admin, "bad", "consumer.session.timeout.ms", "1"))
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("consumer.session.timeout.ms must be in the range");
            assertThatThrownBy(() -> set(admin, "bad", "no.such.config", "1"))
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("Unknown group config name: no.such.config");
            // validate_only writes nothing.
            ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, "bad");
            admin.incrementalAlterConfigs(
                            Map.of(
                                    res,
                                    List.of(new AlterConfigOp(
                                            new ConfigEntry("share.delivery.count.limit", "3"),
                                            AlterConfigOp.OpType.SET))),
                            new org.apache.kafka.clients.admin.AlterConfigsOptions().validateOnly(true))
                    .all()
                    .get();
            assertThat(describe(admin, "bad").get("share.delivery.count.limit").value())
                    .isEqualTo("5");
        }
    }

    @Test
    void kafkaConfigsToolAltersAndDescribesAGroupAndItSurvivesARestart() throws Exception {
        ExternalProcess alter = ExternalProcess.java(
                dir,
                null,
                "org.apache.kafka.tools.ConfigCommand",
                "--bootstrap-server",
                b.bootstrap(),
                "--alter",
                "--entity-type",
                "groups",
                "--entity-name",
                "tool-group",
                "--add-config",
                "share.record.lock.duration.ms=20000,share.isolation.level=read_committed");
        assertThat(alter.exitCode()).as("%s", alter).isZero();
        b.restart();
        ExternalProcess described = ExternalProcess.java(
                dir,
                null,
                "org.apache.kafka.tools.ConfigCommand",
                "--bootstrap-server",
                b.bootstrap(),
                "--describe",
                "--entity-type",
                "groups",
                "--entity-name",
                "tool-group");
        assertThat(described.exitCode()).as("%s", described).isZero();
        assertThat(described.out())
                .contains("share.record.lock.duration.ms=20000", "share.isolation.level=read_committed");
        try (Admin admin = b.admin()) {
            assertThat(describe(admin, "tool-group")
                            .get("share.record.lock.duration.ms")
                            .source())
                    .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG);
        }
    }
}
