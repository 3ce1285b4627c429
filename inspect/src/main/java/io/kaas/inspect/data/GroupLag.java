package io.kaas.inspect.data;

/** One consumer group's committed offset of a partition, and its lag: the log end minus the committed offset. */
public record GroupLag(String group, long offset, long lag) {}
