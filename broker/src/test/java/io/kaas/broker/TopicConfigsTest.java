package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.broker.config.ApacheTopicConfigs;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicDefaults;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic configs as Apache Kafka 4.4 defines them, through real kafka-clients: what Kafka Streams
 * creates its internal topics with, Apache's validation messages, the full DescribeConfigs set with
 * Apache's defaults (read from Apache's own LogConfig, so a drift fails here), every alter operation,
 * the legacy AlterConfigs, and all of it across a restart. One broker for the class.
 */
class TopicConfigsTest {
    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() {
        b = new TestBroker(dir);
    }

    @AfterAll
    static void stop() {
        b.close();
    }

    private static Config describe(Admin admin, String topic) throws Exception {
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(
                        List.of(res),
                        new DescribeConfigsOptions().includeSynonyms(true).includeDocumentation(true))
                .all()
                .get()
                .get(res);
    }

    private static Map<String, String> values(Config c) {
        return c.entries().stream()
                .collect(Collectors.toMap(ConfigEntry::name, e -> e.value() == null ? "<null>" : e.value()));
    }

    @Test
    void kafkaStreamsInternalTopicConfigsAreAccepted() throws Exception {
        // What Kafka Streams 4.4 sends for a changelog and a repartition topic.
        Map<String, String> changelog = Map.of(
                "cleanup.policy",
                "compact",
                "message.timestamp.type",
                "CreateTime",
                "min.compaction.lag.ms",
                "0",
                "min.cleanable.dirty.ratio",
                "0.01",
                "segment.bytes",
                "52428800");
        Map<String, String> repartition = Map.of(
                "cleanup.policy",
                "delete",
                "message.timestamp.type",
                "CreateTime",
                "retention.ms",
                "-1",
                "segment.bytes",
                "52428800",
                "segment.ms",
                "600000",
                "max.message.bytes",
                "2097152");
        try (Admin admin = b.admin()) {
            CreateTopicsResult created = admin.createTopics(List.of(
                    new NewTopic("app-store-changelog", 2, (short) 1).configs(changelog),
                    new NewTopic("app-repartition", 2, (short) 1).configs(repartition)));
            created.all().get();
            Config fromCreate = created.config("app-store-changelog").get();
            assertThat(fromCreate.get("min.cleanable.dirty.ratio").value()).isEqualTo("0.01");
            assertThat(fromCreate.entries())
                    .hasSize(LogConfig.nonInternalConfigNames().size());

            assertThat(values(describe(admin, "app-store-changelog"))).containsAllEntriesOf(changelog);
            assertThat(values(describe(admin, "app-repartition"))).containsAllEntriesOf(repartition);
            assertThat(describe(admin, "app-store-changelog")
                            .get("min.cleanable.dirty.ratio")
                            .source())
                    .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        }
        TopicConfig stored =
                b.broker().engine().topic("app-repartition").orElseThrow().config();
        assertThat(stored.retentionMs()).isEqualTo(-1L);
        assertThat(stored.segmentBytes()).isEqualTo(52428800L);
        assertThat(stored.otherConfigs())
                .containsEntry("message.timestamp.type", "CreateTime")
                .containsEntry("max.message.bytes", "2097152");
    }

    @Test
    void badValuesAndUnknownNamesAreInvalidConfigWithApachesMessage() throws Exception {
        try (Admin admin = b.admin()) {
            String[][] rows = {
                {
                    "message.timestamp.type",
                    "Foo",
                    "Invalid value Foo for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime"
                },
                {
                    "min.cleanable.dirty.ratio",
                    "2",
                    "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"
                },
                {"retention.ms", "abc", "Invalid value abc for configuration retention.ms: Not a number of type LONG"},
                {
                    "segment.bytes",
                    "10",
                    "Invalid value 10 for configuration segment.bytes: Value must be at least 1048576"
                },
                {
                    "cleanup.policy",
                    "foo",
                    "Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete"
                },
                {"no.such.config", "1", "Unknown topic config name: no.such.config"}
            };
            for (String[] row : rows) {
                assertThatThrownBy(() -> admin.createTopics(
                                        List.of(new NewTopic("bad", 1, (short) 1).configs(Map.of(row[0], row[1]))))
                                .all()
                                .get())
                        .as(row[0])
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(InvalidConfigurationException.class)
                        .cause()
                        .hasMessage(row[2]);
            }
            assertThat(b.broker().engine().topic("bad")).isEmpty();

            admin.createTopics(List.of(new NewTopic("alter-bad", 1, (short) 1)))
                    .all()
                    .get();
            ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "alter-bad");
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(
                                    res,
                                    List.of(new AlterConfigOp(
                                            new ConfigEntry("compression.type", "brotli"), AlterConfigOp.OpType.SET))))
                            .all()
                            .get())
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .cause()
                    .hasMessageContaining("compression.type");
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(
                                    res,
                                    List.of(new AlterConfigOp(
                                            new ConfigEntry("retention.ms", "5"), AlterConfigOp.OpType.APPEND))))
                            .all()
                            .get())
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .cause()
                    .hasMessage("Can't APPEND to key retention.ms because its type is not LIST.");
        }
    }

    @Test
    void describeConfigsReturnsApachesFullSetWithApachesDefaults() throws Exception {
        try (Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("fresh", 1, (short) 1)))
                    .all()
                    .get();
            Config c = describe(admin, "fresh");
            assertThat(c.entries().stream().map(ConfigEntry::name).collect(Collectors.toSet()))
                    .isEqualTo(Set.copyOf(LogConfig.nonInternalConfigNames()));
            for (ConfigEntry e : c.entries()) {
                ConfigDef.ConfigKey k = LogConfig.configKeys().get(e.name());
                assertThat(e.isReadOnly()).as(e.name()).isFalse();
                assertThat(e.isSensitive()).as(e.name()).isFalse();
                assertThat(e.documentation()).as(e.name()).isEqualTo(k.documentation);
                assertThat(e.type().name()).as(e.name()).isEqualTo(k.type.name());
                if (!e.name().equals("flush.messages")) {
                    // Every default is Apache's, except what kaas's broker is configured to differently.
                    assertThat(e.value()).as(e.name()).isEqualTo(ConfigDef.convertToString(k.defaultValue, k.type));
                    assertThat(e.isDefault()).as(e.name()).isTrue();
                }
            }
            assertThat(c.get("retention.ms").value()).isEqualTo("604800000");
            assertThat(c.get("max.message.bytes").value()).isEqualTo("1048588");
            assertThat(c.get("retention.ms").synonyms())
                    .extracting(
                            ConfigEntry.ConfigSynonym::name,
                            ConfigEntry.ConfigSynonym::value,
                            ConfigEntry.ConfigSynonym::source)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(
                            "log.retention.hours", "168", ConfigEntry.ConfigSource.DEFAULT_CONFIG));
            // kaas fsyncs every message by default: the broker's static log.flush.interval.messages shows through.
            assertThat(c.get("flush.messages").value()).isEqualTo("1");
            assertThat(c.get("flush.messages").source()).isEqualTo(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
            assertThat(c.get("flush.messages").synonyms())
                    .extracting(ConfigEntry.ConfigSynonym::name)
                    .containsExactly("log.flush.interval.messages", "log.flush.interval.messages");

            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "0");
            Config bc = admin.describeConfigs(List.of(broker)).all().get().get(broker);
            assertThat(bc.get("log.retention.hours").value()).isEqualTo("168");
            assertThat(bc.get("log.retention.hours").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertThat(bc.get("message.max.bytes").value()).isEqualTo("1048588");
            assertThat(bc.get("num.partitions").source()).isEqualTo(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
            assertThat(bc.entries()).allMatch(ConfigEntry::isReadOnly);
        }
    }

    @Test
    void theEnginesOwnDefaultsAreApaches() {
        assertThat(TopicDefaults.DEFAULT_RETENTION_MS).isEqualTo(LogConfig.DEFAULT_RETENTION_MS);
        assertThat(TopicDefaults.DEFAULT_SEGMENT_MS).isEqualTo(LogConfig.DEFAULT_SEGMENT_MS);
        assertThat(TopicDefaults.DEFAULT_DELETE_RETENTION_MS).isEqualTo(LogConfig.DEFAULT_DELETE_RETENTION_MS);
        assertThat(TopicDefaults.DEFAULT_MIN_COMPACTION_LAG_MS).isEqualTo(LogConfig.DEFAULT_MIN_COMPACTION_LAG_MS);
        assertThat(Long.toString(TopicDefaults.DEFAULT_RETENTION_BYTES))
                .isEqualTo(ApacheTopicConfigs.defaultValue("retention.bytes"));
        assertThat(TopicDefaults.DEFAULT_CLEANUP_POLICY).isEqualTo(ApacheTopicConfigs.defaultValue("cleanup.policy"));
        assertThat(BrokerConfig.defaults().segmentBytes()).isEqualTo(LogConfig.DEFAULT_SEGMENT_BYTES);
    }

    @Test
    void everyAlterOperationAndTheLegacyAlterConfigsRoundTripAndSurviveARestart() throws Exception {
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "altered");
        try (Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("altered", 1, (short) 1)))
                    .all()
                    .get();
            admin.incrementalAlterConfigs(Map.of(
                            res,
                            List.of(
                                    new AlterConfigOp(
                                            new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND),
                                    new AlterConfigOp(
                                            new ConfigEntry("min.insync.replicas", "1"), AlterConfigOp.OpType.SET),
                                    new AlterConfigOp(
                                            new ConfigEntry("retention.ms", "60000"), AlterConfigOp.OpType.SET))))
                    .all()
                    .get();
            assertThat(describe(admin, "altered").get("cleanup.policy").value()).isEqualTo("delete,compact");
            assertThat(b.broker()
                            .engine()
                            .topic("altered")
                            .orElseThrow()
                            .config()
                            .cleanupPolicy())
                    .isEqualTo("delete,compact");
            admin.incrementalAlterConfigs(Map.of(
                            res,
                            List.of(
                                    new AlterConfigOp(
                                            new ConfigEntry("cleanup.policy", "delete"), AlterConfigOp.OpType.SUBTRACT),
                                    new AlterConfigOp(
                                            new ConfigEntry("min.insync.replicas", null),
                                            AlterConfigOp.OpType.DELETE))))
                    .all()
                    .get();
            Config c = describe(admin, "altered");
            assertThat(c.get("cleanup.policy").value()).isEqualTo("compact");
            assertThat(c.get("min.insync.replicas").isDefault()).isTrue();
            assertThat(c.get("retention.ms").value()).isEqualTo("60000");
        }
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort())) {
            AlterConfigsRequestData.AlterableConfigCollection configs =
                    new AlterConfigsRequestData.AlterableConfigCollection();
            configs.add(new AlterConfigsRequestData.AlterableConfig()
                    .setName("compression.type")
                    .setValue("zstd"));
            configs.add(new AlterConfigsRequestData.AlterableConfig()
                    .setName("message.timestamp.type")
                    .setValue("LogAppendTime"));
            AlterConfigsRequestData.AlterConfigsResourceCollection resources =
                    new AlterConfigsRequestData.AlterConfigsResourceCollection();
            resources.add(new AlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType(ConfigResource.Type.TOPIC.id())
                    .setResourceName("altered")
                    .setConfigs(configs));
            AlterConfigsResponseData r = raw.roundTrip(
                    ApiKeys.ALTER_CONFIGS,
                    ApiKeys.ALTER_CONFIGS.latestVersion(),
                    new AlterConfigsRequestData().setResources(resources));
            assertThat(r.responses().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        }
        b.restart();
        try (Admin admin = b.admin()) {
            Map<String, String> after = values(describe(admin, "altered"));
            // The legacy API replaces the whole set: cleanup.policy and retention.ms went back to their defaults.
            assertThat(after)
                    .containsEntry("compression.type", "zstd")
                    .containsEntry("message.timestamp.type", "LogAppendTime")
                    .containsEntry("cleanup.policy", "delete")
                    .containsEntry("retention.ms", "604800000");
            assertThat(describe(admin, "altered").get("compression.type").source())
                    .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        }
    }

    @Test
    void validateOnlyCreatesNothingAndMinusOneMeansTheBrokerDefaults() throws Exception {
        try (Admin admin = b.admin()) {
            CreateTopicsResult checked = admin.createTopics(
                    List.of(new NewTopic("dry", 3, (short) 1).configs(Map.of("retention.ms", "1000"))),
                    new CreateTopicsOptions().validateOnly(true));
            checked.all().get();
            assertThat(checked.numPartitions("dry").get()).isEqualTo(3);
            assertThat(checked.config("dry").get().get("retention.ms").value()).isEqualTo("1000");
            assertThat(admin.listTopics().names().get()).doesNotContain("dry");
            assertThatThrownBy(() -> admin.createTopics(
                                    List.of(new NewTopic("dry", 1, (short) 1).configs(Map.of("retention.ms", "x"))),
                                    new CreateTopicsOptions().validateOnly(true))
                            .all()
                            .get())
                    .hasCauseInstanceOf(InvalidConfigurationException.class);

            CreateTopicsResult defaults = admin.createTopics(
                    List.of(new NewTopic("defaults", java.util.Optional.empty(), java.util.Optional.empty())));
            defaults.all().get();
            assertThat(defaults.numPartitions("defaults").get())
                    .isEqualTo(
                            b.broker().engine().topic("defaults").orElseThrow().partitions());
            assertThat(defaults.replicationFactor("defaults").get()).isEqualTo(1);
        }
    }

    @Test
    void aBatchLargerThanMaxMessageBytesIsRecordTooLarge() throws Exception {
        try (Admin admin = b.admin()) {
            admin.createTopics(
                            List.of(new NewTopic("small", 1, (short) 1).configs(Map.of("max.message.bytes", "1000"))))
                    .all()
                    .get();
        }
        Map<String, Object> overrides = new HashMap<>();
        overrides.put("linger.ms", 0);
        try (KafkaProducer<byte[], byte[]> p = b.producer(overrides)) {
            p.send(new ProducerRecord<>("small", new byte[100])).get();
            assertThatThrownBy(() -> p.send(new ProducerRecord<>("small", new byte[5000]))
                            .get())
                    .hasCauseInstanceOf(RecordTooLargeException.class)
                    .cause()
                    .hasMessageContaining("exceeds the maximum configured value of 1000");
        }
        assertThat(b.broker()
                        .engine()
                        .partition(new io.kaas.storage.TopicPartition("small", 0))
                        .state()
                        .highWatermark())
                .isEqualTo(1);
    }
}
