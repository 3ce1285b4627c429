package io.kaas.cluster;

/** A value read from the store with the version a compare-and-set must name (0: the key does not exist). */
public record Versioned<T>(T value, long version) {}
