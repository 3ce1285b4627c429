package io.kaas.recovery;

import io.kaas.storage.EngineConfig;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.cleaner.CleanReport;
import io.kaas.storage.cleaner.CleanableLog;
import io.kaas.storage.cleaner.CleanerOptions;
import io.kaas.storage.cleaner.LogCleaner;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicConfigFile;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.PartitionFinder;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.recovery.PartitionAnalysis;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * {@code kaas compact PATH}: one pass of the broker's cleaner over every partition of a compacted topic
 * under PATH, with a report per partition of the records, keys and bytes removed. Partitions of topics
 * whose cleanup.policy has no {@code compact} are skipped (their logs may not have offset gaps). The log
 * is read as the broker's recovery would find it (a read-only scan; a damaged partition is refused),
 * an interrupted swap is finished first, and a partition a running broker owns is refused.
 */
public final class OfflineCompaction {
    /**
     * @param dryRun                 clean into memory only: report, change no byte (and take no lock)
     * @param json                   one JSON object per partition on stdout
     * @param minCompactionLagMs     overrides every topic's min.compaction.lag.ms when not null
     * @param dedupeBufferBytes      the offset map's memory (log.cleaner.dedupe.buffer.size)
     */
    public record Options(boolean dryRun, boolean json, Long minCompactionLagMs, long dedupeBufferBytes) {}

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final Clock clock;
    /** Milliseconds the last partition's cleaning pass took, without the recovery scan before it (reported as durationMs). */
    private long lastPassMs;

    public OfflineCompaction(Options options, PrintWriter out, PrintWriter err, Clock clock) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.clock = clock;
    }

    /** @param progress total bytes (negative) first, then bytes read, across every partition */
    public int run(Path path, LongConsumer progress) {
        List<Path> partitions;
        try {
            partitions = PartitionFinder.find(path);
        } catch (StorageException e) {
            err.println(IoFailure.withCause(e.getMessage(), e));
            summaryJson(0, 0, 0, ExitCodes.UNREADABLE);
            return ExitCodes.UNREADABLE;
        }
        progress.accept(-estimate(partitions));
        int exit = ExitCodes.OK;
        int cleaned = 0;
        long bytesRemoved = 0;
        for (Path partition : partitions) {
            long budget = 2 * closedBytes(partition);
            long[] fed = {0};
            LongConsumer partitionProgress = b -> {
                if (b > 0) {
                    long n = Math.min(b, budget - fed[0]);
                    fed[0] += n;
                    progress.accept(n);
                }
            };
            try (OwnerLock lock = OwnerLock.acquireIfOwned(partition, options.dryRun())) {
                TopicConfig topic = TopicConfigFile.ofPartitionDir(partition);
                if (!topic.compacted()) {
                    print(
                            partition,
                            "skipped",
                            "cleanup.policy is "
                                    + (topic.cleanupPolicy() == null ? "delete (default)" : topic.cleanupPolicy())
                                    + ", not compact",
                            null);
                    continue;
                }
                // Damage refuses the partition before anything is written, an interrupted swap's completion included.
                RecoveryScan.RecoveredState state =
                        PartitionAnalysis.requireUndamaged(partition, "nothing was compacted");
                List<String> swap = CleanerSwap.recover(partition, options.dryRun());
                if (options.dryRun() && !swap.isEmpty()) {
                    swap.forEach(err::println);
                    print(
                            partition,
                            "skipped",
                            "an interrupted cleaner swap must be finished first (run without --dry-run, or kaas recover)",
                            null);
                    continue;
                }
                swap.forEach(err::println);
                if (!swap.isEmpty()) {
                    state = PartitionAnalysis.requireUndamaged(partition, "nothing was compacted");
                }
                CleanReport r = compact(partition, topic, state, partitionProgress);
                print(
                        partition,
                        r.endOffset() < 0 ? "clean" : options.dryRun() ? "would_compact" : "compacted",
                        null,
                        r);
                if (r.endOffset() >= 0) {
                    cleaned++;
                    bytesRemoved += r.bytesRemoved();
                }
            } catch (StorageException e) {
                String message = IoFailure.withCause(e.getMessage(), e);
                err.println(message);
                boolean damaged = e.kind() == StorageException.Kind.DAMAGED;
                if (options.json()) {
                    print(
                            partition,
                            damaged ? "refused" : "error",
                            message.lines().findFirst().orElse(message),
                            null);
                }
                // Damage (a bad CRC, a log recovery would refuse) is a finding, as in verify and recover; the rest is
                // I/O.
                exit = ExitCodes.worst(exit, damaged ? ExitCodes.PROBLEMS : ExitCodes.UNREADABLE);
            } finally {
                progress.accept(budget - fed[0]);
            }
            out.flush();
        }
        summaryJson(partitions.size(), cleaned, bytesRemoved, exit);
        err.println(partitions.size() + " partition(s): " + cleaned
                + (options.dryRun() ? " would be compacted, " : " compacted, ") + bytesRemoved + " bytes "
                + (options.dryRun() ? "would be " : "") + "removed");
        err.flush();
        return exit;
    }

    private CleanReport compact(
            Path partition, TopicConfig topic, RecoveryScan.RecoveredState state, LongConsumer progress) {
        CleanerOptions cleanerOptions = CleanerOptions.forTopic(
                topic,
                clock.millis(),
                options.dedupeBufferBytes(),
                options.minCompactionLagMs(),
                new IndexPolicy(EngineConfig.DEFAULT_INDEX_INTERVAL_BYTES));
        long started = System.nanoTime();
        CleanReport r = new LogCleaner(cleanerOptions)
                .clean(CleanableLog.fromRecovered(partition, state), options.dryRun(), progress);
        lastPassMs = (System.nanoTime() - started) / 1_000_000;
        return r;
    }

    private void print(Path partition, String status, String why, CleanReport r) {
        if (options.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("partition", partition.toString());
            m.put("status", status);
            m.put("dryRun", options.dryRun());
            if (why != null) {
                m.put("reason", why);
            }
            if (r != null) {
                m.put("firstDirtyOffset", r.firstDirtyOffset());
                m.put("cleanedUpTo", r.endOffset());
                m.put("segmentsCleaned", r.segmentsCleaned());
                m.put("segmentsAfter", r.segmentsAfter());
                m.put("keys", r.keysMapped());
                m.put("recordsRead", r.recordsRead());
                m.put("recordsRemoved", r.recordsRemoved());
                m.put("supersededRemoved", r.supersededRemoved());
                m.put("keysRemoved", r.keysRemoved());
                m.put("abortedRemoved", r.abortedRemoved());
                m.put("markersRemoved", r.markersRemoved());
                m.put("unkeyedRemoved", r.unkeyedRemoved());
                m.put("bytesBefore", r.bytesBefore());
                m.put("bytesAfter", r.bytesAfter());
                m.put("bytesRemoved", r.bytesRemoved());
                m.put("durationMs", lastPassMs);
            }
            out.println(JsonLine.of(m));
            return;
        }
        if (r == null || r.endOffset() < 0) {
            out.println(partition + ": " + status
                    + (why != null
                            ? " (" + why + ")"
                            : " (nothing dirty below the active segment and the last stable offset)"));
            return;
        }
        out.println(partition + ": " + (options.dryRun() ? "would compact" : "compacted") + " " + r.segmentsCleaned()
                + " segment(s) into " + r.segmentsAfter() + ", offsets below " + r.endOffset() + "; records "
                + r.recordsRead()
                + " -> " + (r.recordsRead() - r.recordsRemoved()) + ", bytes " + r.bytesBefore() + " -> "
                + r.bytesAfter()
                + "; " + r.keysMapped() + " key(s) in the dirty range");
        out.println("  removed " + r.recordsRemoved() + " record(s): " + r.supersededRemoved() + " superseded, "
                + r.keysRemoved()
                + " key(s) deleted (tombstones past delete.retention.ms), " + r.abortedRemoved() + " aborted, "
                + r.markersRemoved() + " transaction marker(s), " + r.unkeyedRemoved() + " without a key; "
                + r.bytesRemoved() + " bytes");
    }

    /** With --json, the last line: {"type":"summary",...}. */
    private void summaryJson(int partitions, int cleaned, long bytesRemoved, int exit) {
        if (options.json()) {
            out.println(JsonLine.of(
                    "type",
                    "summary",
                    "dryRun",
                    options.dryRun(),
                    "partitions",
                    partitions,
                    options.dryRun() ? "wouldCompact" : "compacted",
                    cleaned,
                    "bytesRemoved",
                    bytesRemoved,
                    "exitCode",
                    exit));
            out.flush();
        }
    }

    private static long estimate(List<Path> partitions) {
        long total = 0;
        for (Path p : partitions) {
            total += 2 * closedBytes(p);
        }
        return total;
    }

    /** Bytes of a partition's closed segments: what a pass reads at most twice (map, then clean). */
    private static long closedBytes(Path partition) {
        try {
            List<SegmentFile> segments = new ArrayList<>(PartitionSegments.list(partition));
            long total = 0;
            for (int i = 0; i < segments.size() - 1; i++) {
                total += Files.size(segments.get(i).log());
            }
            return total;
        } catch (java.io.IOException | StorageException e) {
            return 0;
        }
    }
}
