package io.kaas.cli;

import io.kaas.storage.io.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --data-dir}, shared by every command that works on a data directory. The flag wins over
 * {@code KAAS_DATA_DIR}, which wins over {@code ./kaas-data}, as for the original's environment variable.
 * The description states the default in words, not with picocli's default-value variable, so generated
 * man pages do not depend on the environment of whoever built them.
 */
public final class DataDirMixin {

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            defaultValue = "${env:KAAS_DATA_DIR:-./kaas-data}",
            description = "Data directory (default: $KAAS_DATA_DIR, else ./kaas-data).")
    private Path dataDir;

    public Path dataDir() {
        return dataDir;
    }

    /**
     * The data directory, which must exist: commands that only add to one (users, ACLs) never create it,
     * since a mistyped {@code --data-dir} would otherwise leave a tree no broker reads, and the change with it.
     *
     * @throws StorageException IO (exit 3) naming the directory when it is missing or not a directory
     */
    public Path existingDataDir() {
        if (!Files.exists(dataDir)) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    dataDir + ": no such data directory (not created; "
                            + "give the --data-dir of a broker, or create it first)");
        }
        if (!Files.isDirectory(dataDir)) {
            throw new StorageException(StorageException.Kind.IO, dataDir + ": not a directory");
        }
        return dataDir;
    }
}
