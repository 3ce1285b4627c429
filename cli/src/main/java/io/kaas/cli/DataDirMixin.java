package io.kaas.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --data-dir}, shared by every command that works on a data directory. The flag wins over
 * {@code KAAS_DATA_DIR}, which wins over {@code ./kaas-data}, as for the original's environment variable.
 * The description states the default in words, not with picocli's default-value variable, so generated
 * man pages do not depend on the environment of whoever built them.
 */
public final class DataDirMixin {

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "${env:KAAS_DATA_DIR:-./kaas-data}",
            description = "Data directory (default: $KAAS_DATA_DIR, else ./kaas-data).")
    private Path dataDir;

    public Path dataDir() {
        return dataDir;
    }
}
