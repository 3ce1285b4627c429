package io.kaas.migration;

/** What {@link ApacheExport} tells its caller as it goes (the CLI prints progress on stderr and lines on stdout). */
public interface ExportListener {
    /** Before a partition's bytes are checked: its position among {@code total} partitions. */
    void partitionStarted(String topicPartition, int index, int total, long bytes);

    /** One partition exported (or, in a dry run, what would be written). */
    void partitionDone(PartitionOutcome outcome);

    /** One consumer group's committed offsets written into {@code __consumer_offsets-<partition>} (or that would be). */
    void groupDone(String groupId, int offsets, int partition);

    /**
     * One partition as exported.
     *
     * @param transfer "hard links", "copies", "hard links and copies", or "none (dry run)"
     * @param leaderEpoch the epoch Apache's leader takes (the partition's newest)
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
            int leaderEpoch) {}
}
