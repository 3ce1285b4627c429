package io.kaas.storage;

/** An offset and the timestamp it was found by (ListOffsets). */
public record TimestampOffset(long timestamp, long offset) {}
