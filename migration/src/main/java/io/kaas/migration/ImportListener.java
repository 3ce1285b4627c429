package io.kaas.migration;

import java.util.List;

/** What {@link ApacheImport} tells its caller as it goes (the CLI prints progress on stderr and lines on stdout). */
public interface ImportListener {
    /** Before a partition's bytes are read: its position among {@code total} partitions. */
    void partitionStarted(String topicPartition, int index, int total, long bytes);

    /** One partition imported (or, in a dry run, what would be written). */
    void partitionDone(PartitionOutcome outcome);

    /** One consumer group's committed offsets written (or that would be). */
    void groupDone(String groupId, int offsets);

    /**
     * One partition as imported.
     *
     * @param transfer "hard links", "copies", "hard links and copies", or "none (dry run)"
     * @param markers  end-transaction markers the import wrote for transactions Apache left open
     */
    record PartitionOutcome(
            String topic,
            int partition,
            String target,
            int segments,
            long bytes,
            String transfer,
            long logStartOffset,
            long logEndOffset,
            int producers,
            List<String> markers) {
        public PartitionOutcome {
            markers = List.copyOf(markers);
        }
    }
}
