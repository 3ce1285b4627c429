package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The AdminClient surface Kafka's tools use, against a real broker; then a restart keeps it all. */
class AdminApiIT {
    @TempDir
    Path dir;

    @Test
    void topicsPartitionsConfigsRecordsAndOffsets() throws Exception {
        try (TestBroker b = new TestBroker(dir);
                Admin admin = b.admin()) {
            admin.createTopics(List.of(
                            new NewTopic("a", 2, (short) 1).configs(Map.of("retention.ms", "3600000")),
                            new NewTopic("b", 1, (short) 1)))
                    .all()
                    .get();
            assertThat(admin.listTopics().names().get()).containsExactlyInAnyOrder("a", "b");
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("a", 1, (short) 1)))
                            .all()
                            .get())
                    .hasCauseInstanceOf(TopicExistsException.class);

            TopicDescription a =
                    admin.describeTopics(List.of("a")).allTopicNames().get().get("a");
            assertThat(a.partitions()).hasSize(2);
            assertThat(a.partitions().get(0).leader().port())
                    .isEqualTo(b.broker().boundPort());
            assertThat(a.topicId())
                    .isEqualTo(org.apache.kafka.common.Uuid.fromString(io.kaas.broker.api.Uuids.toKafka(
                                    b.broker().engine().topic("a").orElseThrow().topicId())
                            .toString()));

            admin.createPartitions(Map.of("a", NewPartitions.increaseTo(4)))
                    .all()
                    .get();
            assertThat(admin.describeTopics(List.of("a"))
                            .allTopicNames()
                            .get()
                            .get("a")
                            .partitions())
                    .hasSize(4);

            ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "a");
            Config cfg = admin.describeConfigs(List.of(res)).all().get().get(res);
            assertThat(cfg.get("retention.ms").value()).isEqualTo("3600000");
            assertThat(cfg.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertThat(cfg.get("cleanup.policy").value()).isEqualTo("delete");
            admin.incrementalAlterConfigs(Map.of(
                            res,
                            List.of(
                                    new AlterConfigOp(
                                            new ConfigEntry("retention.bytes", "1048576"), AlterConfigOp.OpType.SET),
                                    new AlterConfigOp(
                                            new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE))))
                    .all()
                    .get();
            cfg = admin.describeConfigs(List.of(res)).all().get().get(res);
            assertThat(cfg.get("retention.bytes").value()).isEqualTo("1048576");
            assertThat(cfg.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "0");
            assertThat(admin.describeConfigs(List.of(broker))
                            .all()
                            .get()
                            .get(broker)
                            .get("num.partitions")
                            .isReadOnly())
                    .isTrue();

            long t0 = System.currentTimeMillis();
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
                for (int i = 0; i < 10; i++) {
                    p.send(new ProducerRecord<>(
                                    "b", 0, t0 + i * 1000L, null, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                            .get();
                }
            }
            TopicPartition b0 = new TopicPartition("b", 0);
            ListOffsetsResult.ListOffsetsResultInfo latest = admin.listOffsets(Map.of(b0, OffsetSpec.latest()))
                    .all()
                    .get()
                    .get(b0);
            assertThat(latest.offset()).isEqualTo(10);
            assertThat(admin.listOffsets(Map.of(b0, OffsetSpec.earliest()))
                            .all()
                            .get()
                            .get(b0)
                            .offset())
                    .isZero();
            ListOffsetsResult.ListOffsetsResultInfo max = admin.listOffsets(Map.of(b0, OffsetSpec.maxTimestamp()))
                    .all()
                    .get()
                    .get(b0);
            assertThat(max.offset()).isEqualTo(9);
            assertThat(max.timestamp()).isEqualTo(t0 + 9000);
            assertThat(admin.listOffsets(Map.of(b0, OffsetSpec.forTimestamp(t0 + 4500)))
                            .all()
                            .get()
                            .get(b0)
                            .offset())
                    .isEqualTo(5);

            try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of())) {
                Map<TopicPartition, OffsetAndTimestamp> found = c.offsetsForTimes(Map.of(b0, t0 + 3000));
                assertThat(found.get(b0).offset()).isEqualTo(3);
                assertThat(c.offsetsForTimes(Map.of(b0, t0 + 60_000)).get(b0)).isNull();
            }

            assertThat(admin.deleteRecords(Map.of(b0, RecordsToDelete.beforeOffset(4)))
                            .all()
                            .get())
                    .isNull();
            assertThat(admin.listOffsets(Map.of(b0, OffsetSpec.earliest()))
                            .all()
                            .get()
                            .get(b0)
                            .offset())
                    .isEqualTo(4);

            admin.deleteTopics(List.of("a")).all().get();
            assertThat(admin.listTopics().names().get()).containsExactly("b");
            assertThatThrownBy(() ->
                            admin.describeTopics(List.of("a")).allTopicNames().get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
            assertThat(admin.describeCluster().nodes().get()).hasSize(1);
            assertThat(admin.describeLogDirs(List.of(0))
                            .allDescriptions()
                            .get()
                            .get(0)
                            .values()
                            .iterator()
                            .next()
                            .replicaInfos())
                    .containsKey(b0);
        }
    }

    @Test
    void restartKeepsRecordsTopicsConfigsAndCommittedOffsets() throws Exception {
        try (TestBroker b = new TestBroker(dir)) {
            try (Admin admin = b.admin()) {
                admin.createTopics(
                                List.of(new NewTopic("kept", 2, (short) 1).configs(Map.of("segment.bytes", "1048576"))))
                        .all()
                        .get();
            }
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
                for (int i = 0; i < 500; i++) {
                    p.send(new ProducerRecord<>("kept", i % 2, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
                }
                p.flush();
            }
            try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of("group.id", "keeper"))) {
                c.assign(List.of(new TopicPartition("kept", 0)));
                c.commitSync(Map.of(
                        new TopicPartition("kept", 0),
                        new org.apache.kafka.clients.consumer.OffsetAndMetadata(123, "m")));
            }
            b.restart();
            try (Admin admin = b.admin()) {
                assertThat(admin.listTopics().names().get()).containsExactly("kept");
                ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "kept");
                assertThat(admin.describeConfigs(List.of(res))
                                .all()
                                .get()
                                .get(res)
                                .get("segment.bytes")
                                .value())
                        .isEqualTo("1048576");
                assertThat(admin.listConsumerGroupOffsets("keeper")
                                .partitionsToOffsetAndMetadata()
                                .get()
                                .get(new TopicPartition("kept", 0))
                                .offset())
                        .isEqualTo(123);
            }
            assertThat(ProduceConsumeIT.consumeAll(b, "kept", 2, 500))
                    .hasSize(500)
                    .doesNotHaveDuplicates();
            assertThat(Set.copyOf(ProduceConsumeIT.consumeAll(b, "kept", 2, 500)))
                    .contains("v0", "v499");
        }
    }
}
