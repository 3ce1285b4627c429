package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * {@code <partition>/move-source.json}: the mark of a partition moved here from another log dir (AlterReplicaLogDirs,
 * KIP-113). Written (atomically) into the complete, fsynced staging copy before the rename that makes the copy the
 * partition: so a partition directory holding it is the authoritative copy, and the directory of the same partition
 * in {@code from} is the old copy, to be removed. Removed itself once the old copy is gone.
 *
 * @param from the log dir the partition was moved from, as an absolute path
 */
@JsonPropertyOrder({"version", "from"})
public record MoveSource(int version, String from) {
    public static final String FILE_NAME = "move-source.json";
    public static final int VERSION = 1;
}
