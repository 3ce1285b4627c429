package io.kaas.storage;

import io.kaas.storage.format.AbortedTransaction;
import io.kaas.storage.segment.Segment;
import java.util.List;

/**
 * What lock-free readers see of a partition, swapped atomically by {@link PartitionCore} after every
 * change under the lock: the segment list (oldest first), the offsets, and the read-side facts a Fetch
 * and DescribeProducers need. A segment's bytes below the published high watermark are whole.
 *
 * <p>{@code abortedRanges} is published with the last stable offset it belongs to: a transaction that
 * begins below that offset had ended when it was computed, so a read_committed Fetch capped there finds
 * every abort it must drop in this same view.
 *
 * @param abortedRanges every aborted transaction range above log start, by marker order (immutable)
 * @param producers     every producer's status, one immutable record each ({@link ProducerStatuses})
 */
record PartitionView(
        List<Segment> segments,
        PartitionState state,
        List<AbortedTransaction> abortedRanges,
        ProducerStatuses producers) {}
