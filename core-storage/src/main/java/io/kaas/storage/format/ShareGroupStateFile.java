package io.kaas.storage.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code <data>/__cluster/share_groups/<group>.json}: one share group's share-partition state (KIP-932), the
 * broker's share-state store writes it, {@code kaas dump-segment} and {@code kaas verify} read it. A file is named
 * as the group's offsets file is ({@link GroupOffsetsFile#fileName}).
 */
public final class ShareGroupStateFile {
    /** Written: records as runs ({@link Record#lastOffset}). Version 1 files (one offset per record) are read too. */
    public static final int VERSION = 2;

    public static final Set<Integer> READABLE_VERSIONS = Set.of(1, 2);
    /** The record states as stored (the names of the broker's record states). */
    public static final Set<String> STATES = Set.of("AVAILABLE", "ACQUIRED", "ACKNOWLEDGED", "ARCHIVED");

    private ShareGroupStateFile() {}

    /** The file's content. */
    public record Group(int version, String groupId, List<Partition> partitions) {
        public Group {
            partitions = partitions == null ? List.of() : List.copyOf(partitions);
        }
    }

    /**
     * One share partition: its start offset (SPSO: every record below is done with), its end offset (SPEO: the first
     * offset never acquired), and the records between them not done with, with those done with behind the first that
     * is not.
     */
    public record Partition(
            String topicId, String topic, int partition, long startOffset, long endOffset, List<Record> records) {
        public Partition {
            records = records == null ? List.of() : List.copyOf(records);
        }
    }

    /**
     * A run of offsets, {@code offset} to {@code lastOffset} (null: {@code offset} alone, as version 1 wrote every
     * record), in one state, each delivered {@code deliveryCount} times. Runs keep the file small: what a fetch
     * acquired, and what its acknowledgement accepted, is one run, not one entry per record.
     */
    public record Record(long offset, Long lastOffset, String state, int deliveryCount) {
        /** The run's last offset. */
        public long last() {
            return lastOffset == null ? offset : lastOffset;
        }
    }

    /** The group a file name says its file belongs to (see {@link GroupOffsetsFile#groupOf}). */
    public static Optional<String> groupOf(String fileName) {
        return GroupOffsetsFile.groupOf(fileName);
    }

    /**
     * What is wrong with a parsed file named {@code fileName}, one line each; empty when the broker can load it as it
     * is. Offsets out of order, outside {@code [startOffset, endOffset)}, unknown states and negative delivery counts
     * would make a restarted broker deliver wrongly, so each is reported.
     */
    public static List<String> problemsOf(String fileName, Group g) {
        List<String> out = new ArrayList<>();
        if (!READABLE_VERSIONS.contains(g.version())) {
            out.add("version " + g.version() + ", expected one of " + new java.util.TreeSet<>(READABLE_VERSIONS));
        }
        Optional<String> named = groupOf(fileName);
        if (g.groupId() == null || g.groupId().isEmpty()) {
            out.add("no groupId");
        } else if (named.isPresent() && !named.get().equals(g.groupId())) {
            out.add("groupId " + g.groupId() + " in the file of group " + named.get());
        }
        for (Partition p : g.partitions()) {
            String where = (p.topic() == null ? p.topicId() : p.topic()) + "-" + p.partition();
            if (p.topicId() == null || p.partition() < 0) {
                out.add(where + ": no topic id or a negative partition");
            }
            if (p.startOffset() < 0 || p.endOffset() < p.startOffset()) {
                out.add(where + ": start offset " + p.startOffset() + " > end offset " + p.endOffset());
            }
            long previous = -1;
            for (Record r : p.records()) {
                if (r.offset() <= previous) {
                    out.add(where + ": offset " + r.offset() + " after " + previous + " (not increasing)");
                } else if (r.last() < r.offset()) {
                    out.add(where + ": offsets " + r.offset() + " to " + r.last() + " (a run ending before it starts)");
                } else if (r.offset() < p.startOffset() || r.last() >= p.endOffset()) {
                    out.add(where + ": offsets " + r.offset() + " to " + r.last() + " outside [" + p.startOffset()
                            + ", " + p.endOffset() + ")");
                }
                if (!STATES.contains(r.state())) {
                    out.add(where + ": offset " + r.offset() + " has unknown state " + r.state());
                }
                if (r.deliveryCount() < 0) {
                    out.add(where + ": offset " + r.offset() + " has delivery count " + r.deliveryCount());
                }
                previous = Math.max(previous, r.last());
            }
        }
        return out;
    }
}
