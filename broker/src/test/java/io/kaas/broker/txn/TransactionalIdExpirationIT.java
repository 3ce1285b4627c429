package io.kaas.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.TestBroker;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.layout.ClusterDir;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code transactional.id.expiration.ms} (Apache's semantics): an id idle that long with nothing open is removed
 * from its slot file and forgotten; one with a transaction open is kept however long it idles.
 */
class TransactionalIdExpirationIT {
    @Test
    void anIdleIdIsRemovedFromItsSlotFileAndAnOpenOneIsKept(@TempDir Path dir) throws Exception {
        TransactionConfig quick = new TransactionConfig(Duration.ofMinutes(15), Duration.ofMillis(100))
                .withIdExpiration(Duration.ofSeconds(3));
        try (TestBroker b = new TestBroker(
                        BrokerConfig.forTest(dir.resolve("data")).withRetentionCheckInterval(Duration.ZERO), quick);
                Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("exp", 1, (short) 1))).all().get();
            long firstProducerId;
            try (KafkaProducer<byte[], byte[]> idle =
                            b.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "idle"));
                    KafkaProducer<byte[], byte[]> open = b.producer(Map.of(
                            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                            "open",
                            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                            60_000))) {
                idle.initTransactions();
                idle.beginTransaction();
                idle.send(new ProducerRecord<>("exp", "committed".getBytes())).get();
                idle.commitTransaction();
                firstProducerId = admin.describeTransactions(List.of("idle"))
                        .description("idle")
                        .get()
                        .producerId();
                open.initTransactions();
                open.beginTransaction();
                open.send(new ProducerRecord<>("exp", "open".getBytes())).get();

                await().atMost(Duration.ofSeconds(20))
                        .until(() -> slotHolds(b.dataDir(), "idle").isEmpty());
                assertThat(describeError(admin, "idle")).isInstanceOf(TransactionalIdNotFoundException.class);
                assertThat(slotHolds(b.dataDir(), "open"))
                        .as("a transaction is open: never expired")
                        .hasValueSatisfying(r -> assertThat(r.state()).isEqualTo(TxnState.ONGOING));
                open.commitTransaction();
            }
            // The id starts afresh, with a new producer id.
            try (KafkaProducer<byte[], byte[]> again =
                    b.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "idle"))) {
                again.initTransactions();
                assertThat(admin.describeTransactions(List.of("idle"))
                                .description("idle")
                                .get()
                                .producerId())
                        .isNotEqualTo(firstProducerId);
            }
            b.restart();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> slotHolds(b.dataDir(), "idle").isEmpty()
                            && slotHolds(b.dataDir(), "open").isEmpty());
        }
    }

    private static Throwable describeError(Admin admin, String id) throws InterruptedException {
        try {
            admin.describeTransactions(List.of(id)).description(id).get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static Optional<TransactionRecord> slotHolds(Path dataDir, String transactionalId) {
        Path file = ClusterDir.txnStateSlot(ClusterDir.of(dataDir), TransactionStateStore.slotFor(transactionalId));
        return StateJson.read(file, TransactionStateStore.SlotFile.class).stream()
                .flatMap(f -> f.transactions().stream())
                .filter(r -> r.transactionalId().equals(transactionalId))
                .findFirst();
    }
}
