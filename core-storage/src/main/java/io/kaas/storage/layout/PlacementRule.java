package io.kaas.storage.layout;

import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * Which dir of a {@link LogDirs} pool a new partition goes to: among the dirs that accept it ({@link LogDir#accepts}:
 * the topic's pinned dirs, else the eligible ones; never a cordoned one), the one with the fewest partitions
 * ({@link #PARTITIONS}, Apache's choice) or the fewest bytes ({@link #BYTES}, then the fewest partitions); the first
 * listed on a tie.
 */
public enum PlacementRule {
    PARTITIONS,
    BYTES;

    /** {@code partitions} or {@code bytes}. */
    public static PlacementRule parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("placement must be partitions or bytes, got " + text, e);
        }
    }

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The dir for a new partition.
     *
     * @param pinned     dir names the topic is pinned to ({@link LogDirs#pinned}); empty: any eligible dir
     * @param partitions partitions a dir holds now
     * @param bytes      bytes a dir's partitions hold now
     * @throws IllegalStateException when no dir accepts it (all cordoned, or every pinned one)
     */
    public LogDir choose(
            LogDirs pool, List<String> pinned, ToLongFunction<LogDir> partitions, ToLongFunction<LogDir> bytes) {
        ToLongFunction<LogDir> load = this == PARTITIONS ? partitions : bytes;
        LogDir only = onlyCandidate(pool, pinned);
        if (only != null) {
            // The loads are counted over every placed partition: creating 100,000 partitions one by one in a
            // single dir would count 5 billion of them for nothing.
            return only;
        }
        LogDir best = null;
        long bestLoad = Long.MAX_VALUE;
        long bestCount = Long.MAX_VALUE;
        for (LogDir d : pool.dirs()) {
            if (!isCandidate(d, pinned)) {
                continue;
            }
            long l = load.applyAsLong(d);
            // By bytes, new (still empty) partitions tie: the fewest partitions breaks it, so a topic created at once
            // spreads.
            long count = this == BYTES ? partitions.applyAsLong(d) : 0;
            if (l < bestLoad || (l == bestLoad && count < bestCount)) {
                best = d;
                bestLoad = l;
                bestCount = count;
            }
        }
        if (best == null) {
            throw noneTakes(pinned);
        }
        return best;
    }

    /** The one dir that may take a new partition when there is exactly one, else null. */
    private static LogDir onlyCandidate(LogDirs pool, List<String> pinned) {
        LogDir only = null;
        for (LogDir d : pool.dirs()) {
            if (isCandidate(d, pinned)) {
                if (only != null) {
                    return null;
                }
                only = d;
            }
        }
        return only;
    }

    private static boolean isCandidate(LogDir d, List<String> pinned) {
        return pinned.isEmpty() ? d.accepts(false) : pinned.contains(d.name()) && d.accepts(true);
    }

    private static IllegalStateException noneTakes(List<String> pinned) {
        return new IllegalStateException(
                pinned.isEmpty()
                        ? "no log dir takes new partitions: every one is cordoned or not eligible"
                        : "no log dir of " + String.join(",", pinned) + " takes new partitions: each is cordoned");
    }
}
