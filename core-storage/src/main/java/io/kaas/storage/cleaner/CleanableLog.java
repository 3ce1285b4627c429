package io.kaas.storage.cleaner;

import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.SegmentName;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One partition as the cleaner sees it: a recovered log (segments oldest first, the last one active)
 * and the state the engine keeps beside it.
 *
 * @param dir                 the partition directory
 * @param segments            every segment, oldest first; the last is the active one and is never cleaned
 * @param logStartOffset      the log start: a stale checkpoint below it is ignored
 * @param lastStableOffset    first offset of the oldest open transaction, or the high watermark: nothing at or past it is cleaned
 * @param lastBatchOfProducer producer id → base offset of its last data batch (producer state): kept, even emptied
 * @param firstDirtyOffset    where the last pass stopped ({@code cleaner-checkpoint.json}), or -1 for none
 */
public record CleanableLog(
        Path dir,
        List<SegmentName> segments,
        long logStartOffset,
        long lastStableOffset,
        Map<Long, Long> lastBatchOfProducer,
        long firstDirtyOffset) {
    /** A partition as the recovery scan found it (offline: {@code kaas compact} runs a dry scan first). */
    public static CleanableLog fromRecovered(Path dir, RecoveryScan.RecoveredState state) {
        RecoveryScan.Outcome o = state.outcome();
        return new CleanableLog(
                dir,
                o.segments(),
                o.logStartOffset(),
                state.txns().lastStableOffset(o.logEndOffset()),
                state.producers().lastBatchBaseOffsets(),
                LogCleaner.readCheckpoint(dir));
    }

    public CleanableLog {
        segments = List.copyOf(segments);
        lastBatchOfProducer = Map.copyOf(lastBatchOfProducer);
    }
}
