package io.kaas.storage;

/**
 * An immutable view of a partition's offsets, published after every append and read without the
 * partition lock (so a stuck fsync never stalls metrics or fetch bookkeeping).
 *
 * @param logStartOffset first offset a reader may fetch
 * @param highWatermark  next offset to be assigned; readers see offsets below it
 * @param lastStableOffset first offset of the oldest open transaction, else the high watermark
 * @param leaderEpoch    the partition's current epoch (file-name prefix of new segments)
 * @param sizeInBytes    bytes in all segments
 */
public record PartitionState(
        long logStartOffset, long highWatermark, long lastStableOffset, int leaderEpoch, long sizeInBytes) {}
