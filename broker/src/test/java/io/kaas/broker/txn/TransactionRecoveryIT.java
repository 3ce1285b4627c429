package io.kaas.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.TestBroker;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.layout.ClusterDir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A broker stopped with a transaction in PREPARE_COMMIT / PREPARE_ABORT (the state a crash between the
 * prepare write and the markers leaves, injected into the slot file while the broker is down) completes
 * it when it starts: every partition gets its marker before anything is served.
 */
@ParameterizedClass(name = "transaction.version={0}")
@ValueSource(shorts = {1, 2})
class TransactionRecoveryIT {
    @TempDir
    Path dir;

    @Parameter
    short transactionVersion;

    private TestBroker broker() {
        return new TestBroker(
                BrokerConfig.forTest(dir.resolve("data")).withRetentionCheckInterval(Duration.ZERO),
                TransactionConfig.DEFAULTS.withVersion(transactionVersion));
    }

    @Test
    void aPreparedCommitIsCompletedAtStartAndAPreparedAbortIsAborted() throws Exception {
        try (TestBroker b = broker()) {
            try (Admin admin = b.admin()) {
                admin.createTopics(List.of(new NewTopic("rec", 2, (short) 1)))
                        .all()
                        .get();
            }
            for (String id : List.of("to-commit", "to-abort")) {
                KafkaProducer<byte[], byte[]> p = b.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id));
                p.initTransactions();
                p.beginTransaction();
                for (int partition = 0; partition < 2; partition++) {
                    p.send(new ProducerRecord<>(
                                    "rec", partition, null, (id + "-" + partition).getBytes(StandardCharsets.UTF_8)))
                            .get();
                }
                p.close(Duration.ZERO); // leaves the transaction ONGOING
            }
            b.broker().stop();
            prepare(b.dataDir(), "to-commit", TxnState.PREPARE_COMMIT);
            prepare(b.dataDir(), "to-abort", TxnState.PREPARE_ABORT);
            b.restart();

            try (Admin admin = b.admin()) {
                for (int partition = 0; partition < 2; partition++) {
                    TopicPartition tp = new TopicPartition("rec", partition);
                    long lso = admin.listOffsets(
                                    Map.of(tp, OffsetSpec.latest()),
                                    new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                            .partitionResult(tp)
                            .get()
                            .offset();
                    assertThat(lso).as("2 records + 2 markers").isEqualTo(4);
                }
            }
            List<String> seen = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> c =
                    b.consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
                c.assign(List.of(new TopicPartition("rec", 0), new TopicPartition("rec", 1)));
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (seen.size() < 2 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                        seen.add(new String(r.value(), StandardCharsets.UTF_8));
                    }
                }
                c.poll(Duration.ofMillis(300)).forEach(r -> seen.add(new String(r.value(), StandardCharsets.UTF_8)));
            }
            assertThat(seen).containsExactlyInAnyOrder("to-commit-0", "to-commit-1");
            assertThat(stateOf(b.dataDir(), "to-commit")).isEqualTo(TxnState.COMPLETE_COMMIT);
            assertThat(stateOf(b.dataDir(), "to-abort")).isEqualTo(TxnState.COMPLETE_ABORT);
        }
    }

    @Test
    void anOngoingTransactionSurvivesARestartOpenAndTheSweepAbortsItAfterItsTimeout() throws Exception {
        TransactionConfig quickSweep =
                new TransactionConfig(Duration.ofMinutes(15), Duration.ofMillis(200)).withVersion(transactionVersion);
        try (TestBroker b = new TestBroker(
                BrokerConfig.forTest(dir.resolve("data")).withRetentionCheckInterval(Duration.ZERO), quickSweep)) {
            KafkaProducer<byte[], byte[]> p = b.producer(Map.of(
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                    "left-open",
                    ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                    3000));
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("open", 0, null, "x".getBytes(StandardCharsets.UTF_8)))
                    .get();
            p.close(Duration.ZERO);
            b.restart();
            io.kaas.storage.PartitionLog log =
                    b.broker().engine().partition(new io.kaas.storage.TopicPartition("open", 0));
            assertThat(log.state().lastStableOffset())
                    .as("open across the restart")
                    .isZero();
            assertThat(stateOf(b.dataDir(), "left-open")).isEqualTo(TxnState.ONGOING);
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> stateOf(b.dataDir(), "left-open") == TxnState.COMPLETE_ABORT);
            assertThat(log.state().highWatermark())
                    .as("the record and the ABORT marker")
                    .isEqualTo(2);
            assertThat(log.state().lastStableOffset()).isEqualTo(2);
        }
    }

    @Test
    void redoingACommitWhoseMarkersWereWrittenWritesNoSecondMarker() throws Exception {
        try (TestBroker b = broker()) {
            b.broker().engine().createTopic("redo", 2, io.kaas.storage.format.TopicConfig.EMPTY);
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "done"))) {
                p.initTransactions();
                p.beginTransaction();
                for (int partition = 0; partition < 2; partition++) {
                    p.send(new ProducerRecord<>("redo", partition, null, "r".getBytes(StandardCharsets.UTF_8)));
                }
                p.commitTransaction();
            }
            b.broker().stop();
            // A crash after the markers, before COMPLETE_COMMIT was written: the slot still says PREPARE_COMMIT.
            Path file = slotFile(b.dataDir(), "done");
            TransactionStateStore.SlotFile slot =
                    StateJson.read(file, TransactionStateStore.SlotFile.class).orElseThrow();
            List<TransactionRecord> next = new ArrayList<>();
            for (TransactionRecord r : slot.transactions()) {
                assertThat(r.state()).isEqualTo(TxnState.COMPLETE_COMMIT);
                next.add(new TransactionRecord(
                        r.transactionalId(),
                        r.producerId(),
                        r.producerEpoch(),
                        r.lastProducerEpoch(),
                        r.timeoutMs(),
                        TxnState.PREPARE_COMMIT,
                        List.of(new TxnPartition("redo", 0), new TxnPartition("redo", 1)),
                        List.of(),
                        List.of(),
                        r.lastUpdateTimestamp(),
                        r.lastUpdateTimestamp(),
                        null));
            }
            StateJson.write(file, new TransactionStateStore.SlotFile(slot.version(), next));
            b.restart();
            for (int partition = 0; partition < 2; partition++) {
                io.kaas.storage.PartitionState state = b.broker()
                        .engine()
                        .partition(new io.kaas.storage.TopicPartition("redo", partition))
                        .state();
                assertThat(state.highWatermark())
                        .as("one record and one COMMIT marker, not two")
                        .isEqualTo(2);
                assertThat(state.lastStableOffset()).isEqualTo(2);
            }
            assertThat(stateOf(b.dataDir(), "done")).isEqualTo(TxnState.COMPLETE_COMMIT);
        }
    }

    private static Path slotFile(Path dataDir, String transactionalId) {
        return ClusterDir.txnStateSlot(ClusterDir.of(dataDir), TransactionStateStore.slotFor(transactionalId));
    }

    private static void prepare(Path dataDir, String transactionalId, TxnState state) {
        Path file = slotFile(dataDir, transactionalId);
        TransactionStateStore.SlotFile slot =
                StateJson.read(file, TransactionStateStore.SlotFile.class).orElseThrow();
        List<TransactionRecord> next = new ArrayList<>();
        for (TransactionRecord r : slot.transactions()) {
            if (r.transactionalId().equals(transactionalId)) {
                assertThat(r.state()).isEqualTo(TxnState.ONGOING);
                assertThat(r.partitions()).hasSize(2);
                r = r.prepared(
                        state == TxnState.PREPARE_COMMIT,
                        r.producerEpoch(),
                        r.lastProducerEpoch(),
                        r.lastUpdateTimestamp());
            }
            next.add(r);
        }
        StateJson.write(file, new TransactionStateStore.SlotFile(slot.version(), next));
    }

    private static TxnState stateOf(Path dataDir, String transactionalId) {
        return StateJson.read(slotFile(dataDir, transactionalId), TransactionStateStore.SlotFile.class)
                .orElseThrow()
                .transactions()
                .stream()
                .filter(r -> r.transactionalId().equals(transactionalId))
                .findFirst()
                .orElseThrow()
                .state();
    }
}
