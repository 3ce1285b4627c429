package io.kaas.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.coordinator.ManualScheduler;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.ProducerStatus;
import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transaction coordinator without a broker: a real engine in a temporary directory (the markers are real appends),
 * the group coordinator beside it, and fake time ({@link ManualScheduler#clock}), so a transaction's timeout passes
 * when the test says so and the sweep runs when the test calls it. Covers the timeout abort, producer-epoch fencing,
 * a commit with offsets, expiration, and a slot's hand-over between two coordinators over one directory.
 */
class TransactionCoordinatorTest {
    private static final int TIMEOUT_MS = 10_000;

    @TempDir
    Path dir;

    private final ManualScheduler time = new ManualScheduler();
    private final AtomicLong nextBlock = new AtomicLong(1000);
    private final List<TransactionCoordinator> coordinators = new ArrayList<>();
    private final TransactionConfig config =
            new TransactionConfig(Duration.ofMinutes(15), Duration.ofHours(1)).withIdExpiration(Duration.ofDays(1));
    private DiskStorageEngine engine;
    private TopicCatalog topics;
    private GroupCoordinator groups;
    private Path clusterDir;

    @BeforeEach
    void open() throws Exception {
        engine = new DiskStorageEngine(EngineConfig.defaults(dir.resolve("data")));
        topics = new TopicCatalog(engine, false, 1);
        topics.create("t", 2, TopicConfig.EMPTY);
        clusterDir = dir.resolve("cluster");
        java.nio.file.Files.createDirectories(clusterDir);
        groups = new GroupCoordinator(clusterDir, time);
    }

    @AfterEach
    void close() throws Exception {
        coordinators.forEach(TransactionCoordinator::stop);
        engine.close();
    }

    /** A coordinator of a broker on its own (every slot), or, with {@code shared}, one waiting for its slots. */
    private TransactionCoordinator coordinator(boolean shared) {
        ProducerIdAllocator ids = new ProducerIdAllocator(size -> nextBlock.getAndAdd(size));
        TransactionPeers peers = shared
                ? new TransactionPeers(
                        PartitionLeaders.single(), () -> new BrokerNode(1, "localhost", 9092, "test"), null)
                : null;
        TransactionCoordinator c =
                new TransactionCoordinator(clusterDir, ids, topics, groups, config, peers, () -> true, time.clock());
        coordinators.add(c);
        return c;
    }

    /** A transactional batch of {@code producerId}/{@code epoch} appended to t-{@code partition}, as Produce would. */
    private PartitionLog produce(int partition, long producerId, short epoch) {
        PartitionLog log = topics.partition("t", partition);
        MemoryRecords batch = MemoryRecords.withTransactionalRecords(
                Compression.NONE, producerId, epoch, 0, new SimpleRecord("v".getBytes()));
        log.append(batch.buffer(), Acks.ALL, -1).join();
        return log;
    }

    private static ProducerStatus status(PartitionLog log, long producerId) {
        return log.producers().stream()
                .filter(s -> s.producerId() == producerId)
                .findFirst()
                .orElseThrow();
    }

    private static TxnState state(TransactionCoordinator c, String transactionalId) {
        return c.describe(transactionalId).map(TransactionRecord::state).orElse(null);
    }

    @Test
    void anOpenTransactionPastItsTimeoutIsAbortedWithABumpedEpoch() {
        TransactionCoordinator c = coordinator(false);
        TransactionCoordinator.InitResult init = c.initProducerId("tx", TIMEOUT_MS, -1, (short) -1);
        assertThat(init.error()).isEqualTo(Errors.NONE);
        long pid = init.producerId();
        assertThat(c.addPartitions("tx", pid, (short) 0, List.of(new TxnPartition("t", 0))))
                .isEqualTo(Errors.NONE);
        PartitionLog log = produce(0, pid, (short) 0);
        assertThat(status(log, pid).currentTxnStartOffset()).isZero();

        time.advance(Duration.ofMillis(TIMEOUT_MS));
        c.sweep();
        assertThat(state(c, "tx")).as("open exactly its timeout: not yet").isEqualTo(TxnState.ONGOING);
        time.advance(Duration.ofMillis(1));
        c.sweep();
        await().atMost(Duration.ofSeconds(30)).until(() -> state(c, "tx") == TxnState.COMPLETE_ABORT);

        TransactionRecord aborted = c.describe("tx").orElseThrow();
        assertThat(aborted.producerEpoch()).as("bumped, fencing the producer").isEqualTo((short) 1);
        assertThat(status(log, pid).producerEpoch()).as("the marker carries it").isEqualTo((short) 1);
        assertThat(status(log, pid).currentTxnStartOffset()).as("aborted there").isEqualTo(-1);
        assertThat(c.endTxn("tx", pid, (short) 0, true, false).join().error()).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(c.addPartitions("tx", pid, (short) 0, List.of(new TxnPartition("t", 1))))
                .isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void anotherSessionFencesTheOlderEpochAndAbortsWhatItLeftOpen() {
        TransactionCoordinator c = coordinator(false);
        long pid = c.initProducerId("tx", TIMEOUT_MS, -1, (short) -1).producerId();
        TransactionCoordinator.InitResult second = c.initProducerId("tx", TIMEOUT_MS, -1, (short) -1);
        assertThat(second.producerId()).isEqualTo(pid);
        assertThat(second.producerEpoch()).isEqualTo((short) 1);
        assertThat(c.addPartitions("tx", pid, (short) 0, List.of(new TxnPartition("t", 0))))
                .as("the zombie")
                .isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(c.addPartitions("tx", pid + 1, (short) 1, List.of(new TxnPartition("t", 0))))
                .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        assertThat(c.addPartitions("tx", pid, (short) 1, List.of(new TxnPartition("t", 0))))
                .isEqualTo(Errors.NONE);
        PartitionLog log = produce(0, pid, (short) 1);

        assertThat(c.initProducerId("tx", TIMEOUT_MS, -1, (short) -1).error())
                .as("a third session while the second's transaction is open: aborted first")
                .isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        await().atMost(Duration.ofSeconds(30)).until(() -> state(c, "tx") == TxnState.COMPLETE_ABORT);
        assertThat(status(log, pid).currentTxnStartOffset()).isEqualTo(-1);
        TransactionCoordinator.InitResult third = c.initProducerId("tx", TIMEOUT_MS, -1, (short) -1);
        assertThat(third.error()).isEqualTo(Errors.NONE);
        assertThat(third.producerEpoch()).as("past the abort's bump").isEqualTo((short) 3);
        assertThat(c.initProducerId("tx", (int) config.maxTimeout().toMillis() + 1, -1, (short) -1)
                        .error())
                .isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
    }

    @Test
    void aCommitMarksEveryPartitionCommitsTheStagedOffsetsAndTheIdExpiresLater() {
        TransactionCoordinator c = coordinator(false);
        long pid = c.initProducerId("tx", TIMEOUT_MS, -1, (short) -1).producerId();
        List<TxnPartition> both = List.of(new TxnPartition("t", 0), new TxnPartition("t", 1));
        assertThat(c.addPartitions("tx", pid, (short) 0, both)).isEqualTo(Errors.NONE);
        assertThat(c.verify("tx", pid, (short) 0, new TxnPartition("t", 1))).isEqualTo(Errors.NONE);
        PartitionLog p0 = produce(0, pid, (short) 0);
        PartitionLog p1 = produce(1, pid, (short) 0);
        assertThat(c.addOffsets("tx", pid, (short) 0, "g")).isEqualTo(Errors.NONE);
        GroupOffsetsFile.Committed offset = new GroupOffsetsFile.Committed("t", 0, 1, -1, "", 0);
        assertThat(groups.stageTransactional("g", "", null, -1, pid, (short) 0, List.of(offset)))
                .isEqualTo(Errors.NONE);
        assertThat(groups.committed("g")).as("pending until the marker").isEmpty();

        TransactionCoordinator.EndResult end =
                c.endTxn("tx", pid, (short) 0, true, false).join();
        assertThat(end.error()).isEqualTo(Errors.NONE);
        assertThat(state(c, "tx")).isEqualTo(TxnState.COMPLETE_COMMIT);
        assertThat(status(p0, pid).currentTxnStartOffset()).isEqualTo(-1);
        assertThat(status(p1, pid).currentTxnStartOffset()).isEqualTo(-1);
        assertThat(groups.committed("g")).containsValue(offset);
        assertThat(c.endTxn("tx", pid, (short) 0, true, false).join().error())
                .as("a retried commit")
                .isEqualTo(Errors.NONE);

        time.advance(config.idExpiration());
        c.sweep();
        assertThat(c.describe("tx"))
                .as("unused for transactional.id.expiration.ms")
                .isEmpty();
        assertThat(c.addPartitions("tx", pid, (short) 0, both)).isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
    }

    @Test
    void aSlotGainedLoadsThePredecessorsStateAndCompletesWhatItLeftPrepared() {
        TransactionCoordinator first = coordinator(true);
        TransactionCoordinator second = coordinator(true);
        int slot = TransactionStateStore.slotFor("tx");
        assertThat(first.initProducerId("tx", TIMEOUT_MS, -1, (short) -1).error())
                .as("no slot taken yet")
                .isEqualTo(Errors.NOT_COORDINATOR);

        first.takeCoordination(slot, 1);
        long pid = first.initProducerId("tx", TIMEOUT_MS, -1, (short) -1).producerId();
        assertThat(first.addPartitions("tx", pid, (short) 0, List.of(new TxnPartition("t", 0))))
                .isEqualTo(Errors.NONE);
        PartitionLog log = produce(0, pid, (short) 0);
        assertThat(second.coordinates("tx")).isFalse();
        assertThat(second.describe("tx")).isEmpty();

        first.giveUpCoordination(slot);
        assertThat(first.coordinates("tx")).isFalse();
        assertThat(first.all()).as("its transactions are forgotten here").isEmpty();
        assertThat(first.endTxn("tx", pid, (short) 0, true, false).join().error())
                .isEqualTo(Errors.NOT_COORDINATOR);
        // As a crash between PREPARE_COMMIT and its markers leaves the slot file.
        TransactionStateStore store = new TransactionStateStore(clusterDir);
        List<TransactionRecord> records = new ArrayList<>(store.load(slot));
        records.replaceAll(r -> r.transactionalId().equals("tx")
                ? r.prepared(
                        true,
                        r.producerEpoch(),
                        r.lastProducerEpoch(),
                        time.clock().millis())
                : r);
        store.write(slot, records);

        second.takeCoordination(slot, 2);
        await().atMost(Duration.ofSeconds(30)).until(() -> state(second, "tx") == TxnState.COMPLETE_COMMIT);
        assertThat(status(log, pid).currentTxnStartOffset()).isEqualTo(-1);
        assertThat(status(log, pid).coordinatorEpoch())
                .as("the marker carries the new coordinator epoch")
                .isEqualTo(2);
        assertThat(store.load(slot)).extracting(TransactionRecord::state).containsExactly(TxnState.COMPLETE_COMMIT);
    }
}
