package io.kaas.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * The cleaner against a model, over random logs of keyed values, tombstones, idempotent batches,
 * committed and aborted transactions and every codec ({@link CleanerScenario}): after a pass, every
 * key's latest committed record below the active segment is the one record left for it, with its
 * offset, timestamp, producer id, epoch, base sequence and codec; nothing of an aborted transaction
 * is left; every batch passes its CRC and kafka-clients reads it; the recovery scan accepts the log;
 * the active segment is untouched. Tombstones survive for delete.retention.ms after the pass that
 * first saw them, and are gone after.
 */
class CleanerProperties {
    private static final long RETENTION = 1_000;
    static final long NOW = CleanerScenario.TIMESTAMP + 100_000;
    private static final LongConsumer NO_PROGRESS = b -> {};

    @Property(tries = 150)
    void latestValuePerKeySurvivesWithItsOffsetAndTombstonesExpire(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 60) int steps,
            @ForAll @IntRange(min = 1, max = 12) int keys,
            @ForAll @IntRange(min = 1, max = 8) int segmentKiB)
            throws Exception {
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            Path dir = Files.createDirectories(fs.getPath("/data/t/0"));
            CleanerScenario s = CleanerScenario.generate(seed, steps, keys);
            List<SegmentName> names = s.write(dir);
            long active = s.activeBase();
            Map<String, CleanerScenario.Written> model = s.latestBelow(active);

            CleanReport first = cleaner(NOW, segmentKiB).clean(input(dir, names, s, -1), false, NO_PROGRESS);
            CleanedLog afterFirst = CleanedLog.read(dir);
            assertSameRecordsAsWritten(afterFirst, s);
            assertLatestPerKey(afterFirst, model, active, true);
            assertIdempotenceStateKept(afterFirst, s);
            assertThat(first.recordsRemoved()).isEqualTo(first.recordsRead() - keptIn(afterFirst, active));
            assertRecoveryAccepts(dir, s.nextOffset);

            // Just before the delete horizon a full pass still keeps every tombstone...
            List<SegmentName> now = segments(dir);
            cleaner(NOW + RETENTION - 1, segmentKiB).clean(input(dir, now, s, 0), false, NO_PROGRESS);
            assertLatestPerKey(CleanedLog.read(dir), model, active, true);
            // ...and at it, drops them: the keys are gone.
            cleaner(NOW + RETENTION, segmentKiB).clean(input(dir, segments(dir), s, 0), false, NO_PROGRESS);
            CleanedLog afterHorizon = CleanedLog.read(dir);
            assertSameRecordsAsWritten(afterHorizon, s);
            assertLatestPerKey(afterHorizon, model, active, false);
            assertIdempotenceStateKept(afterHorizon, s);
            assertRecoveryAccepts(dir, s.nextOffset);
        }
    }

    /**
     * A dedupe buffer too small for the dirty keys: each pass stops where the map filled and the next goes on
     * from the checkpoint, so later passes copy a cleaned part (transactions in it included) and map a dirty
     * one. Once nothing is dirty the log is what one big pass makes.
     */
    @Property(tries = 60)
    void passesResumingFromTheCheckpointEndAtTheLatestValuePerKey(
            @ForAll long seed,
            @ForAll @IntRange(min = 10, max = 60) int steps,
            @ForAll @IntRange(min = 20, max = 40) int keys)
            throws Exception {
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            Path dir = Files.createDirectories(fs.getPath("/data/t/0"));
            CleanerScenario s = CleanerScenario.generate(seed, steps, keys);
            s.write(dir);
            long active = s.activeBase();
            LogCleaner small = new LogCleaner(new CleanerOptions(
                    NOW,
                    RETENTION,
                    0,
                    4 * 1024L,
                    24 * 16,
                    1024,
                    new IndexPolicy(EngineConfig.DEFAULT_INDEX_INTERVAL_BYTES)));
            for (int pass = 0; pass < 1000; pass++) {
                CleanableLog log = input(dir, segments(dir), s, LogCleaner.readCheckpoint(dir));
                if (!small.bounds(log).anythingDirty()) {
                    break;
                }
                small.clean(log, false, NO_PROGRESS);
            }
            assertThat(small.bounds(input(dir, segments(dir), s, LogCleaner.readCheckpoint(dir)))
                            .anythingDirty())
                    .isFalse();
            CleanedLog after = CleanedLog.read(dir);
            assertSameRecordsAsWritten(after, s);
            assertLatestPerKey(after, s.latestBelow(active), active, true);
            assertIdempotenceStateKept(after, s);
            assertRecoveryAccepts(dir, s.nextOffset);
        }
    }

    @Property(tries = 60)
    void aDryRunChangesNoByteAndReportsWhatARealRunDoes(
            @ForAll long seed, @ForAll @IntRange(min = 1, max = 40) int steps) throws Exception {
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            Path dir = Files.createDirectories(fs.getPath("/data/t/0"));
            CleanerScenario s = CleanerScenario.generate(seed, steps, 5);
            List<SegmentName> names = s.write(dir);
            Map<String, byte[]> before = contents(dir);
            CleanReport dry = cleaner(NOW, 4).clean(input(dir, names, s, -1), true, NO_PROGRESS);
            assertThat(contents(dir)).usingRecursiveComparison().isEqualTo(before);
            CleanReport real = cleaner(NOW, 4).clean(input(dir, names, s, -1), false, NO_PROGRESS);
            assertThat(real).isEqualTo(dry);
        }
    }

    static LogCleaner cleaner(long now, int segmentKiB) {
        return new LogCleaner(new CleanerOptions(
                now,
                RETENTION,
                0,
                segmentKiB * 1024L,
                CleanerOptions.DEFAULT_DEDUPE_BUFFER_BYTES,
                1024,
                new IndexPolicy(EngineConfig.DEFAULT_INDEX_INTERVAL_BYTES)));
    }

    static CleanableLog input(Path dir, List<SegmentName> names, CleanerScenario s, long firstDirty) {
        return new CleanableLog(dir, names, 0, s.activeBase(), s.lastBatchOfProducer, firstDirty);
    }

    static List<SegmentName> segments(Path dir) throws Exception {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".log"))
                    .map(n -> SegmentName.parse(n).orElseThrow())
                    .sorted()
                    .toList();
        }
    }

    /** Every record read back is the one written at its offset, in the batch it was written in. */
    static void assertSameRecordsAsWritten(CleanedLog log, CleanerScenario s) {
        long previous = -1;
        for (CleanedLog.Read r : log.records) {
            assertThat(r.offset()).as("offsets increase").isGreaterThan(previous);
            previous = r.offset();
            if (r.control()) {
                continue;
            }
            CleanerScenario.Written w = s.byOffset.get(r.offset());
            assertThat(w).as("offset %d was written", r.offset()).isNotNull();
            assertThat(r.key()).isEqualTo(w.key());
            assertThat(r.value()).isEqualTo(w.value());
            assertThat(r.timestamp()).as("timestamp of offset %d", r.offset()).isEqualTo(w.timestamp());
            assertThat(r.producerId()).isEqualTo(w.producerId());
            assertThat(r.epoch()).isEqualTo(w.epoch());
            assertThat(r.baseSequence()).isEqualTo(w.baseSequence());
            assertThat(r.batchBase()).isEqualTo(w.batchBase());
            assertThat(r.codecId()).as("codec of offset %d", r.offset()).isEqualTo(w.codecId());
        }
    }

    /** Below the active segment, each key has exactly its model record left (tombstones only if {@code tombstonesKept}). */
    static void assertLatestPerKey(
            CleanedLog log, Map<String, CleanerScenario.Written> model, long active, boolean tombstonesKept) {
        Map<String, Long> left = new HashMap<>();
        for (CleanedLog.Read r : log.records) {
            if (r.control() || r.offset() >= active) {
                continue;
            }
            assertThat(left.put(r.key(), r.offset()))
                    .as("key %s left twice (at %d)", r.key(), r.offset())
                    .isNull();
            CleanerScenario.Written w = model.get(r.key());
            assertThat(w).isNotNull();
            assertThat(r.offset())
                    .as("key %s: the latest committed record is left", r.key())
                    .isEqualTo(w.offset());
        }
        for (CleanerScenario.Written w : model.values()) {
            if (w.value() != null || tombstonesKept) {
                assertThat(left)
                        .as("key %s's latest record (offset %d)", w.key(), w.offset())
                        .containsEntry(w.key(), w.offset());
            } else {
                assertThat(left).as("expired tombstone of %s", w.key()).doesNotContainKey(w.key());
            }
        }
    }

    /** Each producer's last data batch is still there, with its producer id, epoch, sequence and last offset. */
    static void assertIdempotenceStateKept(CleanedLog log, CleanerScenario s) {
        for (Map.Entry<Long, Long> e : s.lastBatchOfProducer.entrySet()) {
            assertThat(log.batches.stream()
                            .filter(b -> b.baseOffset() == e.getValue())
                            .map(MutableRecordBatch::producerId))
                    .as("producer %d's last batch at %d", e.getKey(), e.getValue())
                    .containsExactly(e.getKey());
        }
    }

    static long keptIn(CleanedLog log, long active) {
        return log.records.stream().filter(r -> r.offset() < active).count();
    }

    static void assertRecoveryAccepts(Path dir, long logEnd) {
        RecoveryScan.Outcome o = RecoveryScan.scan(
                dir,
                new RecoveryOptions(
                        true,
                        RecoveryOptions.DamagePolicy.REFUSE,
                        new IndexPolicy(EngineConfig.DEFAULT_INDEX_INTERVAL_BYTES),
                        false,
                        0,
                        true),
                b -> {});
        assertThat(o.report().damage()).isEmpty();
        assertThat(o.report().actions()).as("recovery finds nothing to fix").isEmpty();
        assertThat(o.logEndOffset()).isEqualTo(logEnd);
    }

    static Map<String, byte[]> contents(Path dir) throws Exception {
        Map<String, byte[]> out = new java.util.TreeMap<>();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                out.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        }
        return out;
    }
}
