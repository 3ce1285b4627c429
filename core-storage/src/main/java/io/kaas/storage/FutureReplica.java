package io.kaas.storage;

import io.kaas.storage.layout.LogDir;

/**
 * A partition's copy being made in another log dir by a move (Apache's "future replica", KIP-113), as
 * DescribeLogDirs reports it with {@code isFutureKey=true}.
 *
 * @param dir         the dir it is moving to
 * @param sizeInBytes what the copy holds so far
 * @param offsetLag   offsets of the partition not yet in the copy's whole segments (0 once caught up)
 */
public record FutureReplica(LogDir dir, long sizeInBytes, long offsetLag) {}
