package io.kaas.storage.segment;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * One index's entries in memory, the lookups over them and their growth: relative offsets and positions
 * in two parallel arrays, both strictly increasing, so every lookup is a binary search and reads no file.
 *
 * <p>One writer ({@link #add}, {@link #truncateToPosition}: the owning {@link SparseIndex}'s writer, which
 * holds Partition.lock); lookups run concurrently from any thread. An entry is published by the volatile
 * {@code count} after its slots are filled, and a grown array is published before the count that
 * reaches into it, so a reader sees whole entries only.
 */
final class IndexEntries {
    private static final int[] NONE = new int[0];

    private final long baseOffset;
    private volatile int[] relOffsets;
    private volatile int[] positions;
    private volatile int count;

    IndexEntries(long baseOffset, int[] relOffsets, int[] positions, int count) {
        this.baseOffset = baseOffset;
        this.relOffsets = relOffsets;
        this.positions = positions;
        this.count = count;
    }

    /** No entries and no room: a sealed index whose entries are not in memory. */
    static IndexEntries none(long baseOffset) {
        return new IndexEntries(baseOffset, NONE, NONE, 0);
    }

    /** Fails unless ({@code rel}, {@code position}) would come after the last entry. */
    void requireAfterLast(Path file, int rel, int position) {
        int n = count;
        if (n > 0 && (rel <= relOffsets[n - 1] || position <= positions[n - 1])) {
            throw new IllegalStateException(file + ": index entries must increase: (" + (baseOffset + rel) + ", "
                    + position + ") after (" + (baseOffset + relOffsets[n - 1]) + ", " + positions[n - 1] + ")");
        }
    }

    /** Adds an entry after the last one ({@link #requireAfterLast} checked it). Writer only. */
    void add(int rel, int position) {
        int n = count;
        if (n == relOffsets.length) {
            relOffsets = Arrays.copyOf(relOffsets, Math.max(16, n * 2));
            positions = Arrays.copyOf(positions, Math.max(16, n * 2));
        }
        relOffsets[n] = rel;
        positions[n] = position;
        count = n + 1;
    }

    /** Drops entries pointing at or past {@code position}; returns how many are left. Writer only. */
    int truncateToPosition(long position) {
        int n = count;
        while (n > 0 && positions[n - 1] >= position) {
            n--;
        }
        count = n;
        return n;
    }

    /** Drops every entry. Writer only. */
    void clear() {
        count = 0;
    }

    /** Largest entry with offset ≤ target; (base, 0) when none is. */
    IndexEntry floor(long targetOffset) {
        int n = count;
        int[] rel = relOffsets;
        int[] pos = positions;
        long target = targetOffset - baseOffset;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (rel[mid] <= target) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? new IndexEntry(baseOffset, 0) : new IndexEntry(baseOffset + rel[found], pos[found]);
    }

    /** See {@link SparseIndex#lastBatchStartWithin}. */
    IndexEntry lastBatchStartWithin(long after, long atMost, long offsetBelow) {
        int n = count;
        int[] rel = relOffsets;
        int[] pos = positions;
        long relBelow = offsetBelow - baseOffset;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (pos[mid] <= atMost && rel[mid] < relBelow) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 || pos[found] <= after ? null : new IndexEntry(baseOffset + rel[found], pos[found]);
    }

    IndexEntry last() {
        int n = count;
        return n == 0 ? null : new IndexEntry(baseOffset + relOffsets[n - 1], positions[n - 1]);
    }

    int count() {
        return count;
    }

    IndexEntry entry(int i) {
        return new IndexEntry(baseOffset + relOffsets[i], positions[i]);
    }
}
