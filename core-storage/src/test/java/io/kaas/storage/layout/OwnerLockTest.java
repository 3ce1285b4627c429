package io.kaas.storage.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.io.StorageException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnerLockTest {
    @TempDir
    Path dir;

    @Test
    void offlineNoLockFileMeansNothingToTakeAndNothingIsCreated() {
        try (OwnerLock lock = OwnerLock.acquireIfOwned(dir, false)) {
            assertThat(lock.held()).isFalse();
        }
        assertThat(dir.resolve(OwnerLock.FILE_NAME)).doesNotExist();
    }

    @Test
    void offlineHeldLockIsRefusedAndAFreeOneIsTakenUntilClosed() throws Exception {
        Path file = dir.resolve(OwnerLock.FILE_NAME);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = ch.lock()) {
            assertThatThrownBy(() -> OwnerLock.acquireIfOwned(dir, false))
                    .isInstanceOf(PartitionLockedException.class)
                    .hasMessage(file
                            + ": partition is owned by a running broker (lock held); stop the broker or pass --force");
            assertThat(OwnerLock.acquireIfOwned(dir, true).held()).isFalse();
        }
        try (OwnerLock mine = OwnerLock.acquireIfOwned(dir, false)) {
            assertThat(mine.held()).isTrue();
            assertThatThrownBy(() -> OwnerLock.acquireIfOwned(dir, false)).isInstanceOf(PartitionLockedException.class);
        }
        try (OwnerLock again = OwnerLock.acquireIfOwned(dir, false)) {
            assertThat(again.held()).isTrue();
        }
        assertThat(Files.size(file)).isZero();
    }

    @Test
    void engineCreatesTheLockFileAndASecondOwnerIsRefusedAsLocked() {
        try (OwnerLock engine = OwnerLock.acquire(dir)) {
            assertThat(engine.held()).isTrue();
            assertThat(dir.resolve(OwnerLock.FILE_NAME)).isRegularFile();
            assertThatThrownBy(() -> OwnerLock.acquire(dir))
                    .isInstanceOf(StorageException.class)
                    .hasMessage(dir + ": another process holds .lock")
                    .extracting(e -> ((StorageException) e).kind())
                    .isEqualTo(StorageException.Kind.LOCKED);
            assertThatThrownBy(() -> OwnerLock.acquireIfOwned(dir, false)).isInstanceOf(PartitionLockedException.class);
        }
        try (OwnerLock again = OwnerLock.acquire(dir)) {
            assertThat(again.held()).isTrue();
        }
    }

    @Test
    void anEngineHoldsTheDataDirectoryAndEveryoneElseChecksIt() throws Exception {
        Path data = dir.resolve("data");
        Path partition = data.resolve("orders").resolve("0");
        Files.createDirectories(partition);
        try (OwnerLock engine = OwnerLock.acquireDataDir(data)) {
            assertThat(partition.resolve(OwnerLock.FILE_NAME))
                    .as("no descriptor, nor file, per partition")
                    .doesNotExist();
            assertThatThrownBy(() -> OwnerLock.acquireIfOwned(partition, false))
                    .isInstanceOf(PartitionLockedException.class)
                    .hasMessageStartingWith(
                            data.resolve(OwnerLock.FILE_NAME) + ": partition is owned by a running broker");
            assertThat(OwnerLock.acquireIfOwned(partition, true).held())
                    .as("--force, --dry-run")
                    .isFalse();
            assertThatThrownBy(() -> OwnerLock.acquire(partition))
                    .isInstanceOf(StorageException.class)
                    .extracting(e -> ((StorageException) e).kind())
                    .isEqualTo(StorageException.Kind.LOCKED);
            assertThatThrownBy(() -> OwnerLock.acquireDataDir(data))
                    .extracting(e -> ((StorageException) e).kind())
                    .isEqualTo(StorageException.Kind.LOCKED);
        }
        try (OwnerLock tool = OwnerLock.acquireIfOwned(partition, false)) {
            assertThat(tool.held()).isTrue();
            assertThatThrownBy(() -> OwnerLock.acquireDataDir(data))
                    .as("no broker starts under a tool")
                    .extracting(e -> ((StorageException) e).kind())
                    .isEqualTo(StorageException.Kind.LOCKED);
        }
        try (OwnerLock alone = OwnerLock.acquire(partition)) {
            assertThatThrownBy(() -> OwnerLock.acquireIfOwned(partition, false))
                    .isInstanceOf(PartitionLockedException.class)
                    .hasMessageStartingWith(partition.resolve(OwnerLock.FILE_NAME) + ": partition is owned");
        }
        Path apacheStyle = dir.resolve("logs").resolve("orders-0");
        Files.createDirectories(apacheStyle);
        Files.createFile(dir.resolve("logs").resolve(OwnerLock.FILE_NAME));
        try (OwnerLock none = OwnerLock.acquireIfOwned(apacheStyle, false)) {
            assertThat(none.held())
                    .as("only <data>/<topic>/<n> is looked up in a data dir")
                    .isFalse();
        }
    }
}
