package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * {@code <partition>/cleaner-checkpoint.json}: the log below {@code firstDirtyOffset} was compacted by
 * the last cleaning pass (Apache's cleaner-offset-checkpoint, kept per partition). A hint: a missing or
 * stale one (below log start, past the log end) only makes the next pass treat more of the log as dirty.
 */
@JsonPropertyOrder({"version", "firstDirtyOffset"})
public record CleanerCheckpoint(int version, long firstDirtyOffset) {
    public static final String FILE_NAME = "cleaner-checkpoint.json";
    public static final int VERSION = 1;
}
