package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.api.Uuids;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OffsetCommit and OffsetFetch v10 name topics by id only (KIP-848): a commit by id is fetched back by
 * id with the id in the answer, an unknown id is UNKNOWN_TOPIC_ID, and the all-offsets answer carries
 * ids. kafka-clients 4.4 uses v10 once ApiVersions offers it; its transactional offsets go by
 * TxnOffsetCommit v6 the same way.
 */
class TopicIdOffsetsIT {
    @TempDir
    Path dir;

    @Test
    void offsetsCommittedAndFetchedByTopicId() throws Exception {
        try (TestBroker b = new TestBroker(dir);
                Admin admin = b.admin();
                RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            admin.createTopics(List.of(new NewTopic("by-id", 2, (short) 1)))
                    .all()
                    .get();
            Uuid id = Uuids.toKafka(
                    b.broker().engine().topic("by-id").orElseThrow().topicId());
            Uuid unknown = Uuid.randomUuid();

            OffsetCommitRequestData commit = new OffsetCommitRequestData()
                    .setGroupId("raw-group")
                    .setGenerationIdOrMemberEpoch(-1)
                    .setMemberId("");
            commit.topics()
                    .add(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                            .setTopicId(id)
                            .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                    .setPartitionIndex(1)
                                    .setCommittedOffset(42)
                                    .setCommittedMetadata("m"))));
            commit.topics()
                    .add(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                            .setTopicId(unknown)
                            .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                    .setPartitionIndex(0)
                                    .setCommittedOffset(7))));
            OffsetCommitResponseData committed = c.roundTrip(ApiKeys.OFFSET_COMMIT, (short) 10, commit);
            assertThat(committed.topics()).hasSize(2);
            assertThat(committed.topics().get(0).topicId()).isEqualTo(id);
            assertThat(committed.topics().get(0).partitions().get(0).errorCode())
                    .isEqualTo(Errors.NONE.code());
            assertThat(committed.topics().get(1).topicId()).isEqualTo(unknown);
            assertThat(committed.topics().get(1).partitions().get(0).errorCode())
                    .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());

            OffsetFetchRequestData named = new OffsetFetchRequestData();
            named.groups()
                    .add(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId("raw-group")
                            .setMemberEpoch(-1)
                            .setTopics(List.of(
                                    new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                            .setTopicId(id)
                                            .setPartitionIndexes(List.of(0, 1)),
                                    new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                            .setTopicId(unknown)
                                            .setPartitionIndexes(List.of(0)))));
            OffsetFetchResponseData fetched = c.roundTrip(ApiKeys.OFFSET_FETCH, (short) 10, named);
            OffsetFetchResponseData.OffsetFetchResponseGroup group =
                    fetched.groups().get(0);
            assertThat(group.errorCode()).isZero();
            assertThat(group.topics()).hasSize(2);
            OffsetFetchResponseData.OffsetFetchResponseTopics known =
                    group.topics().get(0);
            assertThat(known.topicId()).isEqualTo(id);
            assertThat(known.partitions())
                    .extracting(p -> p.partitionIndex(), p -> p.committedOffset(), p -> p.errorCode())
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(0, -1L, (short) 0),
                            org.assertj.core.groups.Tuple.tuple(1, 42L, (short) 0));
            assertThat(group.topics().get(1).topicId()).isEqualTo(unknown);
            assertThat(group.topics().get(1).partitions().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());

            OffsetFetchRequestData all = new OffsetFetchRequestData();
            all.groups()
                    .add(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId("raw-group")
                            .setMemberEpoch(-1)
                            .setTopics(null));
            OffsetFetchResponseData everything = c.roundTrip(ApiKeys.OFFSET_FETCH, (short) 10, all);
            assertThat(everything.groups().get(0).topics()).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isEqualTo(id);
                assertThat(t.partitions())
                        .singleElement()
                        .satisfies(p -> assertThat(p.committedOffset()).isEqualTo(42));
            });
        }
    }

    @Test
    void kafkaClientsCommitsAndResumesAndCommitsTransactionally() throws Exception {
        try (TestBroker b = new TestBroker(dir)) {
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
                for (int i = 0; i < 10; i++) {
                    p.send(new ProducerRecord<>("resumed", 0, null, new byte[] {(byte) i}));
                }
                p.flush();
            }
            TopicPartition tp = new TopicPartition("resumed", 0);
            try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of("group.id", "resumers"))) {
                c.assign(List.of(tp));
                c.commitSync(Map.of(tp, new OffsetAndMetadata(6)));
                assertThat(c.committed(java.util.Set.of(tp)).get(tp).offset()).isEqualTo(6);
            }
            try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of("group.id", "resumers"))) {
                c.assign(List.of(tp));
                List<ConsumerRecord<byte[], byte[]>> got = new java.util.ArrayList<>();
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (got.size() < 4 && System.nanoTime() < deadline) {
                    c.poll(java.time.Duration.ofMillis(200)).forEach(got::add);
                }
                assertThat(got).extracting(ConsumerRecord::offset).containsExactly(6L, 7L, 8L, 9L);
            }
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of("transactional.id", "offsets-by-id"));
                    KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of("group.id", "txn-resumers"))) {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>("resumed", 0, null, new byte[] {1}));
                p.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(3)), c.groupMetadata());
                p.commitTransaction();
                assertThat(c.committed(java.util.Set.of(tp)).get(tp).offset()).isEqualTo(3);
            }
        }
    }
}
