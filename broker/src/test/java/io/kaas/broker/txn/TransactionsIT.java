package io.kaas.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.TestBroker;
import io.kaas.broker.config.BrokerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Transactions with real kafka-clients against one broker (a short timeout sweep, so the timeout test
 * awaits seconds, not minutes), once per {@code transaction.version}: the 4.4 client follows the finalized
 * feature, so 1 runs KIP-98's protocol and 2 KIP-890 part 2's (an epoch bump per transaction, partitions
 * added by Produce, EndTxn v5).
 */
@ParameterizedClass(name = "transaction.version={0}")
@ValueSource(shorts = {1, 2})
class TransactionsIT {
    @TempDir
    static Path dir;

    static TestBroker b;
    static Admin admin;

    @Parameter
    short transactionVersion;

    @BeforeParameterizedClassInvocation
    static void start(short version) {
        b = new TestBroker(
                BrokerConfig.forTest(dir.resolve("data-v" + version)).withRetentionCheckInterval(Duration.ZERO),
                new TransactionConfig(Duration.ofMinutes(15), Duration.ofMillis(200)).withVersion(version));
        admin = b.admin();
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        admin.close();
        b.close();
    }

    @Test
    void theFinalizedTransactionVersionIsTheConfiguredOne() throws Exception {
        assertThat(admin.describeFeatures()
                        .featureMetadata()
                        .get()
                        .finalizedFeatures()
                        .get("transaction.version")
                        .maxVersionLevel())
                .isEqualTo(transactionVersion);
    }

    static KafkaProducer<byte[], byte[]> transactional(String id, Map<String, Object> extra) {
        Map<String, Object> cfg = new HashMap<>(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id));
        cfg.putAll(extra);
        return b.producer(cfg);
    }

    static KafkaConsumer<byte[], byte[]> consumer(IsolationLevel isolation) {
        return b.consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString()));
    }

    static ProducerRecord<byte[], byte[]> record(String topic, int partition, String value) {
        return new ProducerRecord<>(topic, partition, null, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Every value readable from {@code topic}'s partitions until {@code expected} values arrived (or 20 s). */
    static List<String> readAll(String topic, int partitions, IsolationLevel isolation, int expected) {
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer(isolation)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            c.assign(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (out.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    out.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            // A little longer: anything beyond what was expected would show up now.
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                out.add(new String(r.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    static long offset(String topic, int partition, IsolationLevel isolation) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        ListOffsetsResult r = admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(isolation));
        return r.partitionResult(tp).get().offset();
    }

    @Test
    void commitAbortCommitOverSeveralPartitions() throws Exception {
        admin.createTopics(List.of(new NewTopic("txn-cac", 3, (short) 1))).all().get();
        List<String> committed = new ArrayList<>();
        List<String> all = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> p = transactional("cac", Map.of())) {
            p.initTransactions();
            for (String outcome : List.of("commit1", "abort", "commit2")) {
                p.beginTransaction();
                for (int i = 0; i < 9; i++) {
                    String v = outcome + "-" + i;
                    p.send(record("txn-cac", i % 3, v));
                    all.add(v);
                }
                if (outcome.equals("abort")) {
                    p.flush();
                    p.abortTransaction();
                } else {
                    p.commitTransaction();
                    committed.addAll(all.subList(all.size() - 9, all.size()));
                }
            }
        }
        // Protocol v2 bumps the epoch at the end of every transaction (KIP-890 part 2); v1 keeps the session's.
        assertThat(admin.describeTransactions(List.of("cac"))
                        .description("cac")
                        .get()
                        .producerEpoch())
                .isEqualTo(transactionVersion >= 2 ? 3 : 0);
        assertThat(readAll("txn-cac", 3, IsolationLevel.READ_COMMITTED, committed.size()))
                .containsExactlyInAnyOrderElementsOf(committed);
        assertThat(readAll("txn-cac", 3, IsolationLevel.READ_UNCOMMITTED, all.size()))
                .containsExactlyInAnyOrderElementsOf(all);
        for (int partition = 0; partition < 3; partition++) {
            // 3 data batches and 3 markers per partition; nothing is open, so the LSO is the high watermark.
            assertThat(offset("txn-cac", partition, IsolationLevel.READ_UNCOMMITTED))
                    .isEqualTo(9 + 3);
            assertThat(offset("txn-cac", partition, IsolationLevel.READ_COMMITTED))
                    .isEqualTo(9 + 3);
        }
    }

    @Test
    void openTransactionHoldsTheLastStableOffsetUntilCommit() throws Exception {
        admin.createTopics(List.of(new NewTopic("txn-lso", 1, (short) 1))).all().get();
        try (KafkaProducer<byte[], byte[]> plain = b.producer(Map.of());
                KafkaProducer<byte[], byte[]> p = transactional("lso", Map.of())) {
            plain.send(record("txn-lso", 0, "before")).get();
            p.initTransactions();
            p.beginTransaction();
            p.send(record("txn-lso", 0, "in-txn")).get();
            plain.send(record("txn-lso", 0, "beside")).get();
            assertThat(offset("txn-lso", 0, IsolationLevel.READ_UNCOMMITTED)).isEqualTo(3);
            assertThat(offset("txn-lso", 0, IsolationLevel.READ_COMMITTED)).isEqualTo(1);
            assertThat(readAll("txn-lso", 1, IsolationLevel.READ_COMMITTED, 1)).containsExactly("before");
            p.commitTransaction();
            assertThat(offset("txn-lso", 0, IsolationLevel.READ_COMMITTED)).isEqualTo(4);
            assertThat(readAll("txn-lso", 1, IsolationLevel.READ_COMMITTED, 3))
                    .containsExactly("before", "in-txn", "beside");
        }
    }

    @Test
    void consumeTransformProduceCommitsOffsetsOnlyWithTheTransaction() throws Exception {
        admin.createTopics(List.of(new NewTopic("ctp-in", 1, (short) 1), new NewTopic("ctp-out", 1, (short) 1)))
                .all()
                .get();
        try (KafkaProducer<byte[], byte[]> plain = b.producer(Map.of())) {
            for (int i = 0; i < 10; i++) {
                plain.send(record("ctp-in", 0, "in-" + i));
            }
            plain.flush();
        }
        TopicPartition in = new TopicPartition("ctp-in", 0);
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of(
                        ConsumerConfig.GROUP_ID_CONFIG,
                        "ctp",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"));
                KafkaProducer<byte[], byte[]> p = transactional("ctp", Map.of())) {
            p.initTransactions();
            c.subscribe(List.of("ctp-in"));
            List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                c.poll(Duration.ofMillis(200)).forEach(got::add);
                return got.size() >= 10;
            });
            p.beginTransaction();
            for (ConsumerRecord<byte[], byte[]> r : got) {
                p.send(record("ctp-out", 0, new String(r.value(), StandardCharsets.UTF_8).replace("in-", "out-")));
            }
            p.sendOffsetsToTransaction(Map.of(in, new OffsetAndMetadata(10)), c.groupMetadata());
            p.flush();
            assertThat(admin.listConsumerGroupOffsets("ctp")
                            .partitionsToOffsetAndMetadata()
                            .get())
                    .doesNotContainKey(in);
            p.commitTransaction();
            assertThat(admin.listConsumerGroupOffsets("ctp")
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .get(in)
                            .offset())
                    .isEqualTo(10);

            // An aborted transaction's offsets are dropped.
            p.beginTransaction();
            p.send(record("ctp-out", 0, "dropped"));
            p.sendOffsetsToTransaction(Map.of(in, new OffsetAndMetadata(5)), c.groupMetadata());
            p.abortTransaction();
            assertThat(admin.listConsumerGroupOffsets("ctp")
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .get(in)
                            .offset())
                    .isEqualTo(10);
        }
        assertThat(readAll("ctp-out", 1, IsolationLevel.READ_COMMITTED, 10))
                .hasSize(10)
                .allMatch(v -> v.startsWith("out-"));
    }

    @Test
    void aSecondProducerWithTheSameIdFencesTheFirst() throws Exception {
        admin.createTopics(List.of(new NewTopic("txn-fence", 1, (short) 1)))
                .all()
                .get();
        try (KafkaProducer<byte[], byte[]> older = transactional("fence", Map.of());
                KafkaProducer<byte[], byte[]> newer = transactional("fence", Map.of())) {
            older.initTransactions();
            older.beginTransaction();
            older.send(record("txn-fence", 0, "zombie")).get();
            newer.initTransactions(); // aborts the older session's transaction, bumping the epoch
            assertThatThrownBy(older::commitTransaction)
                    .isInstanceOfAny(ProducerFencedException.class, KafkaException.class)
                    .satisfies(e -> assertThat(e.toString() + e.getCause()).contains("ProducerFenced"));
            newer.beginTransaction();
            newer.send(record("txn-fence", 0, "live"));
            newer.commitTransaction();
        }
        assertThat(readAll("txn-fence", 1, IsolationLevel.READ_COMMITTED, 1)).containsExactly("live");
        assertThat(offset("txn-fence", 0, IsolationLevel.READ_COMMITTED))
                .isEqualTo(offset("txn-fence", 0, IsolationLevel.READ_UNCOMMITTED));
    }

    @Test
    void aTransactionOpenPastItsTimeoutIsAbortedAndTheLastStableOffsetMovesOn() throws Exception {
        admin.createTopics(List.of(new NewTopic("txn-timeout", 1, (short) 1)))
                .all()
                .get();
        try (KafkaProducer<byte[], byte[]> p =
                transactional("timeout", Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 1000))) {
            p.initTransactions();
            p.beginTransaction();
            p.send(record("txn-timeout", 0, "forgotten")).get();
            assertThat(offset("txn-timeout", 0, IsolationLevel.READ_COMMITTED)).isZero();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> offset("txn-timeout", 0, IsolationLevel.READ_COMMITTED)
                            == offset("txn-timeout", 0, IsolationLevel.READ_UNCOMMITTED));
            assertThat(offset("txn-timeout", 0, IsolationLevel.READ_COMMITTED)).isEqualTo(2); // data + ABORT marker
            assertThatThrownBy(p::commitTransaction).isInstanceOf(KafkaException.class);
        }
        assertThat(readAll("txn-timeout", 1, IsolationLevel.READ_COMMITTED, 0)).isEmpty();
    }

    @Test
    void aTimeoutAboveTheMaximumIsRefused() {
        try (KafkaProducer<byte[], byte[]> p =
                transactional("too-long", Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int)
                        Duration.ofMinutes(16).toMillis()))) {
            assertThatThrownBy(p::initTransactions)
                    .isInstanceOf(KafkaException.class)
                    .satisfies(e -> assertThat(e.toString() + e.getCause()).contains("transaction.max.timeout.ms"));
        }
    }
}
