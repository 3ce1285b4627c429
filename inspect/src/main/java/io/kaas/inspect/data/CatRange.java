package io.kaas.inspect.data;

/**
 * Which records {@code kaas cat} prints of a partition: from {@code fromOffset} (inclusive; or, when
 * {@code fromTime} is set, from the first record whose timestamp is at least it, as ListOffsets by time finds it)
 * to {@code toOffset} (inclusive) and, when {@code toTime} is set, up to the last record before the first one whose
 * timestamp is past it; read_committed leaves out aborted transactions and stops at the last stable offset.
 * Unset bounds are {@link Long#MIN_VALUE} (from) and {@link Long#MAX_VALUE} (to).
 */
public record CatRange(long fromOffset, long fromTime, long toOffset, long toTime, boolean readCommitted) {
    public static final CatRange ALL =
            new CatRange(Long.MIN_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, false);

    public boolean hasFromTime() {
        return fromTime != Long.MIN_VALUE;
    }
}
