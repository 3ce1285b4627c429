package io.kaas.storage.cleaner;

import io.kaas.storage.format.TxnIndexSnapshot;
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
 * @param logStartOffset      the log start (nothing is cleaned that only lies below it... but it is not removed either)
 * @param lastStableOffset    first offset of the oldest open transaction, or the high watermark: nothing at or past it is cleaned
 * @param aborted             the aborted-transaction ranges (txn index)
 * @param lastBatchOfProducer producer id → base offset of its last data batch (producer state): kept, even emptied
 * @param firstDirtyOffset    where the last pass stopped ({@code cleaner-checkpoint.json}), or -1 for none
 */
public record CleanableLog(Path dir, List<SegmentName> segments, long logStartOffset, long lastStableOffset,
                           List<TxnIndexSnapshot.Aborted> aborted, Map<Long, Long> lastBatchOfProducer,
                           long firstDirtyOffset) {
    public CleanableLog {
        segments = List.copyOf(segments);
        aborted = List.copyOf(aborted);
        lastBatchOfProducer = Map.copyOf(lastBatchOfProducer);
    }
}
