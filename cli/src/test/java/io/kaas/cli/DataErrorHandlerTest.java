package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.io.StorageException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import org.junit.jupiter.api.Test;

/** I/O failures are data errors (exit 3) whose one line carries the cause, never a bare path. */
class DataErrorHandlerTest {
    @Test
    void eaccesAndEnospcCarryTheirCause() {
        assertThat(DataErrorHandler.describe(new AccessDeniedException("/d/__cluster/acls.json")))
                .isEqualTo("/d/__cluster/acls.json: permission denied");
        assertThat(DataErrorHandler.describe(new UncheckedIOException(
                        new FileSystemException("/d/t/0/m.tmp", null, "No space left on device"))))
                .isEqualTo("/d/t/0/m.tmp: no space left on device");
        assertThat(DataErrorHandler.describe(new StorageException(
                        StorageException.Kind.IO,
                        "/d/t/0: recovery failed: /d/t/0/a.log",
                        new AccessDeniedException("/d/t/0/a.log"))))
                .isEqualTo("/d/t/0: recovery failed: /d/t/0/a.log (permission denied)");
    }

    @Test
    void anythingElseIsABug() {
        assertThat(DataErrorHandler.describe(new IllegalStateException("x"))).isNull();
    }
}
