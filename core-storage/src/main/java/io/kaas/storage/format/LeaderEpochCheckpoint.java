package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@code <partition>/leader-epoch-checkpoint.json}: where each leader epoch began (Kafka's KIP-101 idea),
 * written by a broker taking the partition over, durably, before it writes anything in its epoch.
 * Recovery trusts it over the log: bytes an older epoch's leader wrote at or past a newer epoch's start
 * offset are a fenced ex-leader's late writes (it was stopped or cut off while the new leader took over)
 * and are discarded ({@link #endOf}).
 *
 * <p>Entries are kept in epoch order with non-decreasing start offsets; a single broker that never
 * changes epoch never writes the file.
 */
@JsonPropertyOrder({"version", "epochs"})
public record LeaderEpochCheckpoint(int version, List<Entry> epochs) {
    public static final String FILE_NAME = "leader-epoch-checkpoint.json";
    public static final int VERSION = 1;
    public static final LeaderEpochCheckpoint EMPTY = new LeaderEpochCheckpoint(VERSION, List.of());

    public LeaderEpochCheckpoint {
        epochs = epochs == null ? List.of() : List.copyOf(epochs);
    }

    @JsonPropertyOrder({"epoch", "startOffset"})
    public record Entry(int epoch, long startOffset) {}

    /** The latest epoch recorded, or -1. */
    public int latestEpoch() {
        return epochs.isEmpty() ? -1 : epochs.get(epochs.size() - 1).epoch();
    }

    /**
     * The first offset epoch {@code epoch} may not hold: the start of the first later epoch recorded, or
     * {@link Long#MAX_VALUE} when none is.
     */
    public long endOf(int epoch) {
        long end = Long.MAX_VALUE;
        for (Entry e : epochs) {
            if (e.epoch() > epoch) {
                end = Math.min(end, e.startOffset());
            }
        }
        return end;
    }

    /**
     * With {@code epoch} starting at {@code startOffset}: entries of that epoch or later, or starting past
     * it, are dropped first (a takeover that crashed before writing anything is simply replaced).
     */
    public LeaderEpochCheckpoint with(int epoch, long startOffset) {
        List<Entry> next = new ArrayList<>();
        for (Entry e : epochs) {
            if (e.epoch() < epoch && e.startOffset() <= startOffset) {
                next.add(e);
            }
        }
        next.add(new Entry(epoch, startOffset));
        next.sort(Comparator.comparingInt(Entry::epoch));
        return new LeaderEpochCheckpoint(VERSION, next);
    }
}
