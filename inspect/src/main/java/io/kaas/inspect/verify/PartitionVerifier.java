package io.kaas.inspect.verify;

import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.StorageException;
import io.kaas.storage.format.TopicConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Verifies one partition directory: every segment in offset order (CRC, offsets within and across
 * segments, names), each segment's index, then manifest and checkpoint against the log. Read-only.
 */
final class PartitionVerifier {
    private final VerifyReport report;
    private final LongConsumer progress;

    PartitionVerifier(VerifyReport report, LongConsumer progress) {
        this.report = report;
        this.progress = progress;
    }

    void verify(Path partitionDir) {
        List<SegmentFile> segments;
        try {
            segments = PartitionSegments.list(partitionDir);
        } catch (StorageException e) {
            report.unreadable(e.getMessage());
            return;
        }
        report.countPartition();
        SegmentCheck segmentCheck = new SegmentCheck(report, isCompacted(partitionDir));
        IndexCheck indexCheck = new IndexCheck(report);
        Map<Long, BatchMap> byBase = new HashMap<>();
        long expectedNext = -1;
        long logEnd = 0;
        int maxEpoch = -1;
        SegmentFile previous = null;
        for (SegmentFile segment : segments) {
            if (previous != null && previous.baseOffset() == segment.baseOffset()) {
                report.problem(segment.log(), -1, "two segments share base offset " + segment.baseOffset() + ": "
                        + previous.log().getFileName() + " (a stale leader's files; recover removes the older epoch)");
            }
            previous = segment;
            maxEpoch = Math.max(maxEpoch, segment.name().epoch());
            try {
                SegmentCheck.Result r = segmentCheck.check(segment, expectedNext);
                indexCheck.check(segment, r.batches());
                byBase.put(segment.baseOffset(), r.batches());
                if (r.nextOffset() >= 0) {
                    expectedNext = r.nextOffset();
                    logEnd = r.nextOffset();
                }
                progress.accept(r.size());
            } catch (IOException e) {
                report.unreadable(segment.log() + ": cannot read: " + describe(e));
            }
        }
        if (!segments.isEmpty()) {
            logEnd = Math.max(logEnd, segments.get(segments.size() - 1).baseOffset());
        }
        new StateCheck(report).check(partitionDir, logEnd, maxEpoch, byBase);
    }

    /** A compacted topic may have offset gaps and segments starting above their name: not problems there. */
    static boolean isCompacted(Path partitionDir) {
        try {
            return TopicConfig.ofPartitionDir(partitionDir).compacted();
        } catch (StorageException e) {
            return false;
        }
    }

    static String describe(IOException e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }
}
