package io.kaas.storage.layout;

import io.kaas.storage.io.StorageException;
import java.nio.file.Path;

/** A running broker holds {@code <partition>/.lock}: offline tools must not change that partition. */
public final class PartitionLockedException extends StorageException {
    private final Path lockFile;

    public PartitionLockedException(Path lockFile) {
        super(
                Kind.LOCKED,
                lockFile + ": partition is owned by a running broker (lock held); stop the broker or pass --force");
        this.lockFile = lockFile;
    }

    public Path lockFile() {
        return lockFile;
    }
}
