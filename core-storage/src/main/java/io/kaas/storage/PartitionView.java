package io.kaas.storage;

import io.kaas.storage.segment.Segment;
import java.util.List;

/**
 * What lock-free readers see of a partition, swapped atomically after every change: the segment list
 * (oldest first) and the offsets. A segment's bytes below the published high watermark are whole.
 */
record PartitionView(List<Segment> segments, PartitionState state) {}
