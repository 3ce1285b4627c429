package io.kaas.inspect.verify;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.recovery.DerivedEpochs;
import io.kaas.storage.recovery.OffsetGaps;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Verifies one partition directory: first the damage verdict of the analysis {@code recover --dry-run} runs
 * ({@link AnalysisFindings}), then every segment in offset order (CRC, offsets within and across
 * segments, names), each segment's index, then manifest and checkpoint against the log. Read-only. Where
 * brokers sharing a directory left a leader-epoch checkpoint, what an older epoch wrote past a newer
 * epoch's start is named as a fenced ex-leader's late writes (recovery discards it), not as offsets
 * going backwards. Beside a running broker it checks the prefix there when it started ({@link PartitionPrefix}).
 */
final class PartitionVerifier {
    private final VerifyReport report;
    private final LongConsumer progress;

    PartitionVerifier(VerifyReport report, LongConsumer progress) {
        this.report = report;
        this.progress = progress;
    }

    void verify(Path partitionDir) {
        PartitionPrefix prefix;
        try {
            prefix = PartitionPrefix.capture(partitionDir);
        } catch (StorageException e) {
            report.unreadable(e.getMessage());
            return;
        }
        List<SegmentFile> segments = prefix.segments;
        report.countPartition();
        // The damage verdict is recover's own (one rule); the walk below adds verify's further checks.
        AnalysisFindings analysis = AnalysisFindings.of(partitionDir, report);
        SegmentCheck segmentCheck = new SegmentCheck(report, isCompacted(partitionDir), analysis, partitionDir);
        IndexCheck indexCheck = new IndexCheck(report);
        Map<Long, BatchMap> byBase = new HashMap<>();
        long expectedNext = -1;
        long logEnd = 0;
        int maxEpoch = -1;
        SegmentFile previous = null;
        LeaderEpochCheckpoint epochs = readEpochs(partitionDir);
        for (SegmentFile segment : segments) {
            long epochEnd = segment.name().apacheStyle()
                    ? Long.MAX_VALUE
                    : epochs.endOf(segment.name().epoch());
            if (segment.baseOffset() >= epochEnd) {
                // Several brokers over one directory: a fenced ex-leader's segment, started after the takeover.
                report.problem(
                        segment.log(),
                        -1,
                        "written by epoch " + segment.name().epoch() + " at or past offset " + epochEnd
                                + ", where a later leader epoch began (a fenced ex-leader's late writes; recover removes the file)");
                continue;
            }
            if (previous != null && previous.baseOffset() == segment.baseOffset()) {
                report.problem(
                        segment.log(),
                        -1,
                        "two segments share base offset " + segment.baseOffset() + ": "
                                + previous.log().getFileName()
                                + " (a stale leader's files; recover removes the older epoch)");
            }
            previous = segment;
            maxEpoch = Math.max(maxEpoch, segment.name().epoch());
            try {
                boolean active = prefix.isActive(segment);
                SegmentCheck.Result r =
                        segmentCheck.check(segment, expectedNext, prefix.size(segment), () -> active && prefix.live());
                indexCheck.check(segment, r.batches(), prefix.size(segment), prefix::live, active);
                byBase.put(segment.baseOffset(), r.batches());
                if (r.nextOffset() >= 0) {
                    expectedNext = r.nextOffset();
                    logEnd = r.nextOffset();
                }
                if (r.nextOffset() > epochEnd) {
                    report.problem(
                            segment.log(),
                            -1,
                            "epoch " + segment.name().epoch() + " wrote offsets up to "
                                    + (r.nextOffset() - 1) + ", past offset " + epochEnd
                                    + " where a later leader epoch began"
                                    + " (a fenced ex-leader's late writes; recover cuts them)");
                    expectedNext = epochEnd;
                    logEnd = epochEnd;
                }
                progress.accept(r.size());
            } catch (IOException e) {
                report.unreadable(segment.log() + ": cannot read: " + describe(e));
            }
        }
        if (!segments.isEmpty()) {
            logEnd = Math.max(logEnd, segments.get(segments.size() - 1).baseOffset());
        }
        long activeBase =
                segments.isEmpty() ? -1 : segments.get(segments.size() - 1).baseOffset();
        StateCheck stateCheck = new StateCheck(report);
        stateCheck.check(prefix, logEnd, maxEpoch, byBase, activeBase);
        // The topic's .config.json is judged by the analysis (damage to the topic, refused by every tool).
    }

    /** The partition's leader-epoch checkpoint (brokers sharing a directory write it); empty when missing or unreadable. */
    private LeaderEpochCheckpoint readEpochs(Path partitionDir) {
        try {
            // Fenced by the epochs recovery trusts: one that disagrees with the segment names is rebuilt from them.
            return DerivedEpochs.trusted(
                    partitionDir,
                    StateJson.read(partitionDir.resolve(LeaderEpochCheckpoint.FILE_NAME), LeaderEpochCheckpoint.class)
                            .orElse(LeaderEpochCheckpoint.EMPTY));
        } catch (StorageException e) {
            return LeaderEpochCheckpoint.EMPTY; // reported with the other derivable files (StateCheck)
        }
    }

    /**
     * A compacted topic may have offset gaps and segments starting above their name: not problems there. So
     * may a topic without a .config.json (an Apache log dir, an older data dir, a lost file): its policy is
     * unknown, and recover does not judge offset gaps either, so recover exit 0 still means verify exit 0.
     * A damaged config is the analysis's finding; the walk then judges gaps as for a compacted topic too.
     */
    static boolean isCompacted(Path partitionDir) {
        return OffsetGaps.compactionMayLeaveGaps(partitionDir);
    }

    static String describe(IOException e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }
}
