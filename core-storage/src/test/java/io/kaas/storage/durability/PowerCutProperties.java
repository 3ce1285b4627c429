package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.AppendResult;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicIdentity;
import io.kaas.storage.testfs.TornTail;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * Random operation sequences against the disk engine on the fault-injecting filesystem, with power
 * cuts (every torn-tail mode) between operations and in the middle of concurrent appends. After each
 * cut the engine reopens from the durable image and {@link RecoveredLogCheck} holds it to every
 * acknowledgement: acks=all appends present once, in order, with their bytes; offsets contiguous; log
 * start at or past every acknowledged DeleteRecords; retries of idempotent batches are duplicates; state
 * files parse. jqwik reports the seed of a failing try and replays it first on the next run.
 */
class PowerCutProperties {
    /** Totals across all tries, for the summary line (jqwik makes one instance of this class per property). */
    private long tries;

    private long cuts;
    private long batchesVerified;
    private long retriesVerified;

    sealed interface Op permits Append, DeleteRecords, Retention, CleanReopen, CreateTopic, CreatePartitions, Cut {}

    record Append(int partitionPick, boolean acksAll, boolean idempotent, int records, int valueBytes) implements Op {}

    record DeleteRecords(int partitionPick, int percentOfHighWatermark) implements Op {}

    record Retention(boolean expireEverything) implements Op {}

    record CleanReopen() implements Op {}

    record CreateTopic(int partitions) implements Op {}

    record CreatePartitions(int topicPick) implements Op {}

    /** A power cut; with {@code appenders} > 0 it lands while that many threads append. */
    record Cut(TornTail tail, long seed, int appenders, int acksBeforeCut) implements Op {}

    record Setup(long segmentBytes, int indexIntervalBytes, long checkpointIntervalBytes, long seed) {}

    @Property(tries = 120)
    void acknowledgedDataSurvivesPowerCuts(@ForAll("setups") Setup setup, @ForAll("operations") List<Op> ops)
            throws Exception {
        tries++;
        try (Run run = new Run(setup)) {
            for (Op op : ops) {
                run.apply(op);
            }
            run.apply(new Cut(TornTail.KEEP_RANDOM_PREFIX, setup.seed(), 0, 0));
            cuts += run.cuts;
            batchesVerified += run.check.batchesVerified;
            retriesVerified += run.check.retriesVerified;
        }
    }

    @AfterProperty
    void summary() {
        System.out.printf(
                "durability: %d power-cut tries, %d cuts, %d acknowledged batches and %d idempotent retries verified%n",
                tries, cuts, batchesVerified, retriesVerified);
    }

    @Provide
    Arbitrary<Setup> setups() {
        return Combinators.combine(
                        Arbitraries.of(1024L, 2048L, 8192L),
                        Arbitraries.of(0, 256, 4096),
                        Arbitraries.of(1L, 700L, 4096L, EngineConfig.DEFAULT_CHECKPOINT_INTERVAL_BYTES),
                        Arbitraries.longs())
                .as(Setup::new);
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Op> append = Combinators.combine(
                        Arbitraries.integers().between(0, 1000),
                        Arbitraries.of(true, true, false),
                        Arbitraries.of(true, false),
                        Arbitraries.integers().between(1, 4),
                        Arbitraries.integers().between(0, 400))
                .as(Append::new);
        Arbitrary<Op> delete = Combinators.combine(
                        Arbitraries.integers().between(0, 1000),
                        Arbitraries.integers().between(0, 100))
                .as(DeleteRecords::new);
        Arbitrary<Op> retention = Arbitraries.of(true, false).map(Retention::new);
        Arbitrary<Op> reopen = Arbitraries.just(new CleanReopen());
        Arbitrary<Op> createTopic = Arbitraries.integers().between(1, 2).map(CreateTopic::new);
        Arbitrary<Op> createPartitions = Arbitraries.integers().between(0, 10).map(CreatePartitions::new);
        Arbitrary<Op> cut = Combinators.combine(
                        Arbitraries.of(TornTail.class),
                        Arbitraries.longs(),
                        Arbitraries.of(0, 0, 2, 3),
                        Arbitraries.integers().between(1, 60))
                .as(Cut::new);
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(30, append),
                        net.jqwik.api.Tuple.of(3, delete),
                        net.jqwik.api.Tuple.of(2, retention),
                        net.jqwik.api.Tuple.of(2, reopen),
                        net.jqwik.api.Tuple.of(1, createTopic),
                        net.jqwik.api.Tuple.of(1, createPartitions),
                        net.jqwik.api.Tuple.of(4, cut))
                .list()
                .ofMinSize(5)
                .ofMaxSize(60);
    }

    /** One try: a filesystem, an engine on it, the model of what it promised. */
    private static final class Run implements AutoCloseable {
        private final Setup setup;
        private final Random random;
        private final Map<String, Integer> topics = new LinkedHashMap<>();
        private final Map<TopicPartition, PartitionModel> models = new LinkedHashMap<>();
        /** Producer id → next sequence, for idempotent appends between cuts (a cut retires every producer). */
        private final Map<TopicPartition, long[]> producers = new LinkedHashMap<>();

        final RecoveredLogCheck check = new RecoveredLogCheck();
        private final FaultyDisk disk;
        private long nextProducerId = 1000;
        int cuts;

        Run(Setup setup) throws Exception {
            this.setup = setup;
            this.random = new Random(setup.seed());
            disk = FaultyDisk.create(c -> c.withSegmentBytes(setup.segmentBytes())
                    .withIndexIntervalBytes(setup.indexIntervalBytes())
                    .withCheckpointIntervalBytes(setup.checkpointIntervalBytes()));
            disk.open();
            createTopic(2);
        }

        void apply(Op op) throws Exception {
            if (op instanceof Append a) {
                append(a);
            } else if (op instanceof DeleteRecords d) {
                TopicPartition tp = pick(d.partitionPick());
                PartitionLog log = disk.engine().partition(tp);
                long start = log.state().logStartOffset();
                long target = start + (log.state().highWatermark() - start) * d.percentOfHighWatermark() / 100;
                models.get(tp).logStartAcknowledged(log.deleteRecords(d.percentOfHighWatermark() == 100 ? -1 : target));
            } else if (op instanceof Retention r) {
                disk.engine().runRetention(r.expireEverything() ? System.currentTimeMillis() : 0);
                models.forEach((tp, m) -> m.logStartAcknowledged(
                        disk.engine().partition(tp).state().logStartOffset()));
            } else if (op instanceof CleanReopen) {
                models.forEach((tp, m) ->
                        m.allDurableUpTo(disk.engine().partition(tp).state().highWatermark()));
                disk.closeEngine();
                assertThat(disk.fs().openFiles())
                        .as("files left open by a clean close")
                        .isEmpty();
                disk.open();
                verify("after a clean reopen");
            } else if (op instanceof CreateTopic c) {
                createTopic(c.partitions());
            } else if (op instanceof CreatePartitions c) {
                String name = new ArrayList<>(topics.keySet()).get(c.topicPick() % topics.size());
                int grown = topics.get(name) + 1;
                disk.engine().createPartitions(name, grown);
                topics.put(name, grown);
                models.put(new TopicPartition(name, grown - 1), new PartitionModel());
            } else if (op instanceof Cut c) {
                cut(c);
            }
        }

        private void createTopic(int partitions) {
            String name = "t" + topics.size();
            disk.engine().createTopic(name, partitions, TopicConfig.EMPTY);
            topics.put(name, partitions);
            for (int p = 0; p < partitions; p++) {
                models.put(new TopicPartition(name, p), new PartitionModel());
            }
        }

        private TopicPartition pick(int pick) {
            return new ArrayList<>(models.keySet()).get(pick % models.size());
        }

        private void append(Append a) throws Exception {
            TopicPartition tp = pick(a.partitionPick());
            long pid = -1;
            int seq = -1;
            if (a.idempotent()) {
                long[] producer = producers.computeIfAbsent(tp, k -> new long[] {nextProducerId++, 0});
                pid = producer[0];
                seq = (int) producer[1];
                producer[1] += a.records();
            }
            // Keep a batch well inside a segment (a larger one is refused as RECORD_TOO_LARGE by design).
            int valueBytes = (int) Math.min(a.valueBytes(), setup.segmentBytes() / 2 / a.records());
            ByteBuffer batch =
                    RandomBatches.build(random, a.records(), valueBytes, pid, (short) (pid < 0 ? -1 : 0), seq);
            ByteBuffer sent = RandomBatches.copy(batch);
            Acks acks = a.acksAll() ? Acks.ALL : Acks.LEADER;
            if (pid >= 0) {
                models.get(tp).sending(pid, seq);
            }
            AppendResult r = disk.engine().partition(tp).append(batch, acks, -1).get(20, TimeUnit.SECONDS);
            assertThat(r.duplicate()).isFalse();
            models.get(tp).appended(new PartitionModel.Placed(r.baseOffset(), r.lastOffset(), sent, acks, pid));
        }

        private void cut(Cut c) throws Exception {
            Burst burst = null;
            if (c.appenders() > 0) {
                List<TopicPartition> tps = new ArrayList<>(models.keySet());
                DiskStorageEngine e = disk.engine();
                burst = new Burst(
                        c.appenders(),
                        c.acksBeforeCut(),
                        c.seed(),
                        (int) setup.segmentBytes() / 2,
                        pick -> new Burst.Target(
                                e.partition(tps.get(pick % tps.size())), models.get(tps.get(pick % tps.size()))),
                        () -> nextProducerIdForBurst());
                burst.start();
                assertThat(burst.awaitAcks())
                        .as("appenders acknowledged %d appends before the cut", c.acksBeforeCut())
                        .isTrue();
            }
            disk.cutPower(c.tail(), c.seed());
            cuts++;
            if (burst != null) {
                burst.join(true);
            }
            disk.closeEngineQuietly(); // closing writes state files; in the dead world those writes fail
            producers.clear();
            // What the image holds must parse before anything reopens it.
            StringBuilder image = new StringBuilder();
            for (TopicPartition tp : models.keySet()) {
                Path dir = disk.partitionDir(tp);
                RecoveredLogCheck.stateFilesParse(dir);
                image.append(tp)
                        .append(' ')
                        .append(RecoveredLogCheck.describeDir(dir))
                        .append('\n');
            }
            disk.open();
            verify("after power cut " + cuts + " (" + c.tail() + ", seed " + c.seed() + "; image before reopen:\n"
                    + image + ")");
        }

        private synchronized long nextProducerIdForBurst() {
            return nextProducerId++;
        }

        private void verify(String context) throws Exception {
            for (Map.Entry<String, Integer> t : topics.entrySet()) {
                TopicInfo info = disk.engine()
                        .topic(t.getKey())
                        .orElseThrow(() -> new AssertionError(context + ": topic " + t.getKey() + " is gone"));
                assertThat(info.partitions())
                        .as("%s: partitions of %s", context, t.getKey())
                        .isEqualTo(t.getValue());
                assertThat(StateJson.read(
                                disk.dataDir().resolve(t.getKey()).resolve(TopicIdentity.FILE_NAME),
                                TopicIdentity.class))
                        .as("%s: topic id of %s", context, t.getKey())
                        .isPresent();
            }
            for (Map.Entry<TopicPartition, PartitionModel> e : models.entrySet()) {
                Path dir = disk.partitionDir(e.getKey());
                check.check(e.getKey(), disk.engine().partition(e.getKey()), e.getValue(), context, dir);
                RecoveredLogCheck.stateFilesParse(dir);
            }
        }

        @Override
        public void close() throws IOException {
            disk.close();
        }
    }
}
