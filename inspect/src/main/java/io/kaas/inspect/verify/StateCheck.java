package io.kaas.inspect.verify;

import io.kaas.storage.StorageException;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Checks manifest.json and recovery-checkpoint.json against what the log holds. The manifest lags by
 * design (a high watermark below the log end is normal after a crash), so only claims the log cannot
 * back are problems: a high watermark past the log end, a log start past the high watermark, an epoch
 * older than a segment's. The checkpoint must name a segment, a batch boundary inside its valid part,
 * and the offset after that boundary; or name a segment below the active one that is gone.
 *
 * <p>That last case is normal: the checkpoint is refreshed only as the active segment grows, so after a
 * roll it names an older segment until the next refresh, and the cleaner (which merges segments into
 * one named after the first) or retention may remove that segment meanwhile. Recovery trusts a
 * checkpoint only when it names the active segment ({@code RecoveryScan.analyseActive}) and otherwise
 * scans the active segment whole, so a stale one costs a longer scan and loses nothing.
 */
final class StateCheck {
    private final VerifyReport report;

    StateCheck(VerifyReport report) {
        this.report = report;
    }

    /**
     * @param logEnd       offset after the last valid batch of the partition (or the active segment's base when empty)
     * @param maxEpoch     highest epoch among the segment names (-1 for Apache names)
     * @param segmentsByBase batch maps of the segments, by base offset
     * @param activeBase   base offset of the last (active) segment, or -1 when there is none
     * @param prefix       the manifest and checkpoint as read when verify started, before the segments' sizes
     */
    void check(PartitionPrefix prefix, long logEnd, int maxEpoch, Map<Long, BatchMap> segmentsByBase, long activeBase) {
        Path partitionDir = prefix.dir;
        Path manifestFile = partitionDir.resolve(Manifest.FILE_NAME);
        read(manifestFile, prefix.manifest).ifPresent(m -> {
            if (m.highWatermark() > logEnd) {
                report.problem(manifestFile, -1, "highWatermark " + m.highWatermark() + " is past the log end " + logEnd
                        + " (acknowledged records are missing from the log)");
            }
            if (m.logStartOffset() > m.highWatermark() && m.logStartOffset() > logEnd) {
                report.problem(manifestFile, -1, "logStartOffset " + m.logStartOffset() + " is past the high watermark "
                        + m.highWatermark() + " and the log end " + logEnd);
            }
            if (maxEpoch >= 0 && m.epoch() < maxEpoch) {
                report.problem(manifestFile, -1, "epoch " + m.epoch() + " is older than segment epoch " + maxEpoch);
            }
        });
        Path checkpointFile = partitionDir.resolve(RecoveryCheckpoint.FILE_NAME);
        read(checkpointFile, prefix.checkpoint).ifPresent(c -> {
            BatchMap map = segmentsByBase.get(c.segmentBase());
            if (map == null && c.segmentBase() < activeBase) {
                return; // stale: its segment was cleaned or deleted since (see the class comment)
            }
            if (map == null) {
                report.problem(checkpointFile, -1, "segmentBase " + c.segmentBase() + " names no segment");
                return;
            }
            if (c.bytePos() > map.endPosition()) {
                report.problem(checkpointFile, -1, "bytePos " + c.bytePos() + " is past the valid end " + map.endPosition()
                        + " of segment " + c.segmentBase());
                return;
            }
            long expected = c.bytePos() == 0 ? c.segmentBase() : map.nextOffsetEndingAt(c.bytePos());
            if (expected == Long.MIN_VALUE) {
                report.problem(checkpointFile, -1, "bytePos " + c.bytePos() + " is not a batch boundary of segment " + c.segmentBase());
            } else if (c.bytePos() > 0 && c.highWatermark() != expected) {
                report.problem(checkpointFile, -1, "highWatermark " + c.highWatermark() + " disagrees with the log: the batch ending at byte "
                        + c.bytePos() + " is followed by offset " + expected);
            }
        });
    }

    private <T> Optional<T> read(Path file, PartitionPrefix.State<T> state) {
        StorageException e = state.error();
        if (e != null) {
            report.problem(file, -1, e.getMessage().startsWith(file.toString())
                    ? e.getMessage().substring(file.toString().length() + 2) : e.getMessage());
            return Optional.empty();
        }
        return state.value();
    }
}
