package io.kaas.storage.format;

/** An aborted transaction's range, for read_committed Fetch responses. */
public record AbortedTransaction(long producerId, long firstOffset, long lastOffset) {}
