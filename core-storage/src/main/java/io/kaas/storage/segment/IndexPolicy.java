package io.kaas.storage.segment;

/**
 * When to add an index entry, exactly as Apache Kafka's LogSegment does, so its
 * {@code kafka-dump-log --verify-index-only} accepts our files and {@code rebuild-index} writes the
 * same bytes the broker does: before appending a batch at position P, if more than
 * {@code intervalBytes} were appended since the last entry, add (last offset of this batch, P).
 * The count since the last entry is derivable from positions (P - position of the last entry, or P
 * when there is none), so a scan can resume it from any batch boundary.
 */
public record IndexPolicy(int intervalBytes) {
    /** Apache's index.interval.bytes default. */
    public static final int DEFAULT_INTERVAL_BYTES = 4096;

    public boolean due(long position, IndexEntry lastEntry) {
        long since = lastEntry == null ? position : position - lastEntry.position();
        return since > intervalBytes;
    }
}
