package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.api.Uuids;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShareFetch on the wire: the KIP-74 byte budget (MaxBytes over the response, an equal share of it per
 * partition, only a first batch may exceed) and the long poll woken by an append, not by a timer.
 */
class ShareFetchLimitsIT {
    private static final short VERSION = 1;

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

    private static Uuid topic(String name, int partitions) throws Exception {
        try (Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get();
            admin.incrementalAlterConfigs(Map.of(
                            new ConfigResource(ConfigResource.Type.GROUP, name),
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                    .all()
                    .get();
        }
        return Uuids.toKafka(b.broker().engine().topic(name).orElseThrow().topicId());
    }

    /** {@code batches} batches of one ~1000-byte record each into {@code partition}. */
    private static void produce(String topic, int partition, int batches) {
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 0))) {
            for (int i = 0; i < batches; i++) {
                p.send(new ProducerRecord<>(topic, partition, null, new byte[1000]));
                p.flush();
            }
        }
    }

    private static void join(RawKafkaConnection raw, String group, String member, String topic) throws Exception {
        ShareGroupHeartbeatResponseData r = raw.roundTrip(
                ApiKeys.SHARE_GROUP_HEARTBEAT,
                (short) 1,
                new ShareGroupHeartbeatRequestData()
                        .setGroupId(group)
                        .setMemberId(member)
                        .setMemberEpoch(0)
                        .setSubscribedTopicNames(List.of(topic)));
        assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
    }

    private static ShareFetchRequestData fetch(
            String group, String member, Uuid topicId, int partitions, int maxBytes, int maxWaitMs) {
        ShareFetchRequestData.FetchTopic t = new ShareFetchRequestData.FetchTopic().setTopicId(topicId);
        for (int p = 0; p < partitions; p++) {
            t.partitions().add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(p));
        }
        ShareFetchRequestData req = new ShareFetchRequestData()
                .setGroupId(group)
                .setMemberId(member)
                .setShareSessionEpoch(0)
                .setMaxWaitMs(maxWaitMs)
                .setMinBytes(1)
                .setMaxBytes(maxBytes)
                .setMaxRecords(500)
                .setBatchSize(500);
        req.topics().add(t);
        return req;
    }

    private static List<Integer> sizes(ShareFetchResponseData r) {
        List<Integer> out = new ArrayList<>();
        for (ShareFetchResponseData.ShareFetchableTopicResponse t : r.responses()) {
            for (ShareFetchResponseData.PartitionData p : t.partitions()) {
                out.add(((MemoryRecords) p.records()).sizeInBytes());
            }
        }
        return out;
    }

    @Test
    void maxBytesBoundsTheResponseAndGivesEachPartitionItsShare() throws Exception {
        String topic = "share-budget";
        Uuid id = topic(topic, 2);
        produce(topic, 0, 3);
        produce(topic, 1, 3);
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort())) {
            join(raw, topic, "m", topic);
            ShareFetchResponseData r =
                    raw.roundTrip(ApiKeys.SHARE_FETCH, VERSION, fetch(topic, "m", id, 2, 2_500, 5_000));
            assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
            List<Integer> sizes = sizes(r);
            // 1250 bytes each: one ~1070-byte batch from each partition, not two from the first and none after.
            assertThat(sizes).hasSize(2).allSatisfy(n -> assertThat(n).isPositive());
            assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isLessThanOrEqualTo(2_500);
        }
    }

    @Test
    void aWaitingShareFetchIsAnsweredByTheAppend() throws Exception {
        String topic = "share-wake";
        Uuid id = topic(topic, 1);
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort())) {
            join(raw, topic, "m", topic);
            // MaxWaitMs far past the connection's 10 s read timeout: only the append can answer in time.
            int correlation = raw.send(ApiKeys.SHARE_FETCH, VERSION, fetch(topic, "m", id, 1, 1 << 20, 60_000));
            produce(topic, 0, 1);
            ShareFetchResponseData r = new ShareFetchResponseData(
                    new org.apache.kafka.common.protocol.ByteBufferAccessor(
                            raw.receive(ApiKeys.SHARE_FETCH, VERSION, correlation)),
                    VERSION);
            assertThat(r.responses()
                            .iterator()
                            .next()
                            .partitions()
                            .iterator()
                            .next()
                            .acquiredRecords())
                    .singleElement()
                    .satisfies(a -> assertThat(a.deliveryCount()).isEqualTo((short) 1));
        }
    }
}
