package io.kaas.storage.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OS's words for a failure. EACCES and ENOSPC cannot be provoked honestly here (the tests run as root,
 * which permissions do not stop, and filling a disk is not a test), so the exceptions the JDK throws for them
 * are built as it builds them: {@code AccessDeniedException(path)} and {@code FileSystemException(path, null, strerror)}.
 * ENOTDIR is provoked for real.
 */
class IoFailureTest {
    @TempDir
    Path dir;

    @Test
    void permissionDeniedAndNoSpaceAreSaidInTheOsWords() {
        assertThat(IoFailure.describe(new AccessDeniedException("/d/x.log"))).isEqualTo("/d/x.log: permission denied");
        assertThat(IoFailure.describe(new FileSystemException("/d/x.log", null, "No space left on device")))
                .isEqualTo("/d/x.log: no space left on device");
        assertThat(IoFailure.cause(new UncheckedIOException(new NoSuchFileException("/d"))))
                .isEqualTo("no such file or directory");
        assertThat(IoFailure.describe(new FileSystemException("/a", "/b", "Read-only file system")))
                .isEqualTo("/a -> /b: read-only file system");
        assertThat(IoFailure.cause(new IOException())).isEqualTo("IOException");
    }

    @Test
    void aWrapperThatLostTheCauseGetsItBackOnce() {
        StorageException lost = new StorageException(
                StorageException.Kind.IO, "/d: recovery failed: /d/x.log", new AccessDeniedException("/d/x.log"));
        assertThat(IoFailure.withCause(lost.getMessage(), lost))
                .isEqualTo("/d: recovery failed: /d/x.log (permission denied)");
        StorageException kept = new StorageException(
                StorageException.Kind.IO, "/d: cannot list: /d: permission denied", new AccessDeniedException("/d"));
        assertThat(IoFailure.withCause(kept.getMessage(), kept)).isEqualTo(kept.getMessage());
        assertThat(IoFailure.withCause("no io here", new StorageException(StorageException.Kind.DAMAGED, "x")))
                .isEqualTo("no io here");
    }

    @Test
    void aFileWhereADirectoryIsExpectedIsNotADirectory() throws Exception {
        Path file = Files.writeString(dir.resolve("f"), "x");
        try {
            Files.createFile(file.resolve("child"));
        } catch (IOException e) {
            assertThat(IoFailure.describe(e)).isEqualTo(file.resolve("child") + ": not a directory");
            return;
        }
        throw new AssertionError("creating a file under a regular file succeeded");
    }
}
