package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.config.BrokerConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Incremental fetch sessions (KIP-227) on the wire, with Apache's errors; sessions are found by id from any connection. */
class FetchSessionIT {
    private static final short V12 = 12, V13 = 13;

    @TempDir
    Path dir;

    private static FetchRequestData fetch(int sessionId, int epoch, int... partitionsFromZero) {
        FetchRequestData r = new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setSessionId(sessionId)
                .setSessionEpoch(epoch);
        if (partitionsFromZero.length > 0) {
            FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopic("s");
            for (int p : partitionsFromZero) {
                t.partitions()
                        .add(new FetchRequestData.FetchPartition()
                                .setPartition(p)
                                .setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20));
            }
            r.topics().add(t);
        }
        return r;
    }

    private static List<Integer> partitions(FetchResponseData r) {
        return r.responses().stream()
                .flatMap(t -> t.partitions().stream())
                .map(FetchResponseData.PartitionData::partitionIndex)
                .toList();
    }

    private static void produce(TestBroker b, int partition) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
            p.send(new ProducerRecord<>("s", partition, null, new byte[] {1})).get();
        }
    }

    @Test
    void incrementalFetchesCarryOnlyWhatChanged() throws Exception {
        try (TestBroker b = new TestBroker(dir.resolve("data"));
                Admin admin = b.admin();
                RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort());
                RawKafkaConnection other = new RawKafkaConnection(b.broker().boundPort())) {
            admin.createTopics(List.of(new NewTopic("s", 3, (short) 1))).all().get();
            produce(b, 0);

            FetchResponseData full = c.roundTrip(ApiKeys.FETCH, V12, fetch(0, 0, 0, 1, 2));
            int session = full.sessionId();
            assertThat(session).isNotZero();
            assertThat(partitions(full)).containsExactly(0, 1, 2);

            // Partition 0 moves past its record: nothing changed anywhere, so nothing is sent.
            FetchRequestData moved = fetch(session, 1);
            moved.topics()
                    .add(new FetchRequestData.FetchTopic()
                            .setTopic("s")
                            .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                    .setPartition(0)
                                    .setFetchOffset(1)
                                    .setPartitionMaxBytes(1 << 20))));
            FetchResponseData quiet = c.roundTrip(ApiKeys.FETCH, V12, moved);
            assertThat(quiet.errorCode()).isZero();
            assertThat(quiet.sessionId()).isEqualTo(session);
            assertThat(partitions(quiet)).isEmpty();

            // Only the partition that got a record comes back; from another connection, the session is the same.
            produce(b, 2);
            FetchResponseData news = other.roundTrip(ApiKeys.FETCH, V12, fetch(session, 2));
            assertThat(partitions(news)).containsExactly(2);
            assertThat(news.responses().get(0).partitions().get(0).records().sizeInBytes())
                    .isPositive();

            FetchResponseData stale = c.roundTrip(ApiKeys.FETCH, V12, fetch(session, 2));
            assertThat(stale.errorCode()).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH.code());
            assertThat(stale.sessionId()).isZero();
            assertThat(stale.responses()).isEmpty();
            int unknown = session == Integer.MAX_VALUE ? 1 : session + 1;
            assertThat(c.<FetchResponseData>roundTrip(ApiKeys.FETCH, V12, fetch(unknown, 1))
                            .errorCode())
                    .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
            assertThat(c.<FetchResponseData>roundTrip(ApiKeys.FETCH, V13, fetch(session, 3))
                            .errorCode())
                    .as("a session of topic names is not used by topic id")
                    .isEqualTo(Errors.FETCH_SESSION_TOPIC_ID_ERROR.code());

            // Forgotten partitions are no longer reported, even when they change (partition 2 moves past its record).
            FetchRequestData forget = fetch(session, 3);
            forget.topics()
                    .add(new FetchRequestData.FetchTopic()
                            .setTopic("s")
                            .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                    .setPartition(2)
                                    .setFetchOffset(1)
                                    .setPartitionMaxBytes(1 << 20))));
            forget.forgottenTopicsData()
                    .add(new FetchRequestData.ForgottenTopic().setTopic("s").setPartitions(List.of(1)));
            assertThat(partitions(c.roundTrip(ApiKeys.FETCH, V12, forget))).isEmpty();
            produce(b, 1);
            assertThat(partitions(c.roundTrip(ApiKeys.FETCH, V12, fetch(session, 4))))
                    .isEmpty();

            // A full fetch with the final epoch closes the session and is answered without one.
            FetchResponseData last = c.roundTrip(ApiKeys.FETCH, V12, fetch(session, -1, 0));
            assertThat(last.sessionId()).isZero();
            assertThat(partitions(last)).containsExactly(0);
            assertThat(c.<FetchResponseData>roundTrip(ApiKeys.FETCH, V12, fetch(session, 5))
                            .errorCode())
                    .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());

            // Topic-id sessions (v13+) work the same way.
            Uuid id = admin.describeTopics(List.of("s"))
                    .allTopicNames()
                    .get()
                    .get("s")
                    .topicId();
            FetchRequestData byId = fetch(0, 0);
            byId.topics()
                    .add(new FetchRequestData.FetchTopic()
                            .setTopicId(id)
                            .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                    .setPartition(0)
                                    .setFetchOffset(0)
                                    .setPartitionMaxBytes(1 << 20))));
            FetchResponseData idFull = c.roundTrip(ApiKeys.FETCH, (short) 17, byId);
            assertThat(idFull.sessionId()).isNotZero();
            produce(b, 0);
            FetchResponseData idNews = c.roundTrip(ApiKeys.FETCH, (short) 17, fetch(idFull.sessionId(), 1));
            assertThat(idNews.responses()).hasSize(1);
            assertThat(idNews.responses().get(0).topicId()).isEqualTo(id);
        }
    }

    @Test
    void zeroSlotsMeansEveryFetchIsFull() throws Exception {
        try (TestBroker b =
                        new TestBroker(BrokerConfig.forTest(dir.resolve("data")).withFetchSessionCacheSlots(0));
                Admin admin = b.admin();
                RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            admin.createTopics(List.of(new NewTopic("s", 1, (short) 1))).all().get();
            FetchResponseData full = c.roundTrip(ApiKeys.FETCH, V12, fetch(0, 0, 0));
            assertThat(full.sessionId()).isZero();
            assertThat(partitions(full)).containsExactly(0);
        }
    }
}
