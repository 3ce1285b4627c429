package io.kaas.inspect.verify;

import java.util.Arrays;

/**
 * Positions and offsets of the valid batches of one log, in file order, so index entries and the
 * recovery checkpoint can be checked against them without reading the log again. Three longs per
 * batch: a 1 GiB segment of 1 KiB batches costs 24 MiB.
 */
final class BatchMap {
    private long[] positions = new long[64];
    private long[] baseOffsets = new long[64];
    private long[] lastOffsets = new long[64];
    private int count;
    private long endPosition;

    void add(long position, long baseOffset, long lastOffset, long nextPosition) {
        if (count == positions.length) {
            positions = Arrays.copyOf(positions, count * 2);
            baseOffsets = Arrays.copyOf(baseOffsets, count * 2);
            lastOffsets = Arrays.copyOf(lastOffsets, count * 2);
        }
        positions[count] = position;
        baseOffsets[count] = baseOffset;
        lastOffsets[count] = lastOffset;
        count++;
        endPosition = nextPosition;
    }

    /** Index of the batch starting exactly at {@code position}, or -1. */
    int batchAt(long position) {
        int i = Arrays.binarySearch(positions, 0, count, position);
        return i >= 0 ? i : -1;
    }

    long baseOffset(int i) {
        return baseOffsets[i];
    }

    long lastOffset(int i) {
        return lastOffsets[i];
    }

    int count() {
        return count;
    }

    /** Position just after the last valid batch. */
    long endPosition() {
        return endPosition;
    }

    /**
     * The offset after the batch that ends exactly at {@code position}: what a checkpoint at that byte
     * position must say; {@code Long.MIN_VALUE} when no batch ends there. Position 0 is "before all".
     */
    long nextOffsetEndingAt(long position) {
        if (position == endPosition && count > 0) {
            return lastOffsets[count - 1] + 1;
        }
        int i = batchAt(position);
        if (i > 0) {
            return lastOffsets[i - 1] + 1;
        }
        return Long.MIN_VALUE;
    }
}
