package io.kaas.storage;

import java.nio.channels.FileChannel;

/**
 * Whole batches as a region of a segment file: {@code length} bytes from {@code position} of
 * {@code channel}, for a zero-copy send (sendfile). The channel belongs to the engine: callers
 * transfer from it and never close it. It stays open for at least
 * {@link Partition#REMOVED_SEGMENT_CLOSE_DELAY} after retention or DeleteRecords removes its segment,
 * so a response already being written completes; after the partition itself closes it may not.
 */
public record FileSlice(FileChannel channel, long position, int length) {}
