package io.kaas.storage.segment;

/** One sparse-index entry: an absolute offset inside the batch at {@code position} of the log. */
public record IndexEntry(long offset, int position) {}
