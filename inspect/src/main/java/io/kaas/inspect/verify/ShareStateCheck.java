package io.kaas.inspect.verify;

import io.kaas.storage.format.ShareGroupStateFile;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The share groups' state files of a data dir ({@code __cluster/share_groups/<group>.json}, core-storage
 * {@link ShareGroupStateFile}): each must parse as the broker reads it and hold a state the broker can restart
 * from ({@link ShareGroupStateFile#problemsOf}); a file that does not is a problem at byte 0. A {@code .tmp} left
 * by a crash between the write and the rename is not: the broker never reads it, the next write replaces it.
 */
final class ShareStateCheck {
    private final VerifyReport report;

    ShareStateCheck(VerifyReport report) {
        this.report = report;
    }

    /** Whether {@code file} is a share group's state file (by where it lies). */
    static boolean isShareStateFile(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        String name = file.getFileName().toString();
        return dir != null
                && dir.getFileName() != null
                && dir.getFileName().toString().equals(ClusterDir.SHARE_GROUPS)
                && name.endsWith(".json");
    }

    /** Checks every share state file of {@code dataDir}; none when it has no share groups. */
    void checkDataDir(Path dataDir) {
        Path dir = ClusterDir.shareGroups(ClusterDir.of(dataDir));
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
            for (Path f : files) {
                checkFile(f);
            }
        } catch (NoSuchFileException e) {
            // no share groups
        } catch (IOException e) {
            report.unreadable(dir + ": cannot list: " + PartitionVerifier.describe(e));
        }
    }

    void checkFile(Path file) {
        if (file.getFileName().toString().endsWith(AtomicFile.TMP_SUFFIX)) {
            return;
        }
        ShareGroupStateFile.Group g;
        try {
            var read = StateJson.read(file, ShareGroupStateFile.Group.class);
            if (read.isEmpty()) {
                return;
            }
            g = read.get();
        } catch (StorageException e) {
            report.problem(file, 0, "share group state the broker cannot read: " + e.getMessage());
            return;
        }
        for (String p : ShareGroupStateFile.problemsOf(file.getFileName().toString(), g)) {
            report.problem(file, 0, "share group state: " + p);
        }
    }
}
