package io.kaas.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void noLockFileMeansNothingToTakeAndNothingIsCreated() {
        try (OwnerLock lock = OwnerLock.acquire(dir)) {
            assertThat(lock.held()).isFalse();
        }
        assertThat(dir.resolve(OwnerLock.FILE_NAME)).doesNotExist();
    }

    @Test
    void heldLockIsRefusedAndAFreeOneIsTakenUntilClosed() throws Exception {
        Path file = dir.resolve(OwnerLock.FILE_NAME);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = ch.lock()) {
            assertThatThrownBy(() -> OwnerLock.acquire(dir)).isInstanceOf(PartitionLockedException.class)
                    .hasMessage(file + ": partition is owned by a running broker (lock held); stop the broker or pass --force");
            assertThat(OwnerLock.acquire(dir, true).held()).isFalse();
        }
        try (OwnerLock mine = OwnerLock.acquire(dir)) {
            assertThat(mine.held()).isTrue();
            assertThatThrownBy(() -> OwnerLock.acquire(dir)).isInstanceOf(PartitionLockedException.class);
        }
        try (OwnerLock again = OwnerLock.acquire(dir)) {
            assertThat(again.held()).isTrue();
        }
        assertThat(Files.size(file)).isZero();
    }
}
