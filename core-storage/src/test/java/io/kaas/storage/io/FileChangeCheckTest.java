package io.kaas.storage.io;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.StateJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileChangeCheckTest {
    record Value(int v) {}

    @TempDir
    Path dir;

    @Test
    void anAtomicRewriteOfTheSameSizeAndTimeIsSeenOnceByItsNewInode() throws Exception {
        Path file = dir.resolve("acls.json");
        StateJson.write(file, new Value(1));
        FileTime time = Files.getLastModifiedTime(file);
        FileChangeCheck check = new FileChangeCheck(file, 0);
        assertThat(check.changed()).as("nothing happened yet").isFalse();

        StateJson.write(file, new Value(2)); // same size; a new file renamed over the old one
        Files.setLastModifiedTime(file, time); // as a rewrite within the filesystem's time granularity
        assertThat(check.changed()).isTrue();
        assertThat(check.changed()).as("taken as loaded").isFalse();

        Files.delete(file);
        assertThat(check.changed()).as("gone").isTrue();
        assertThat(check.loaded()).isEmpty();
    }

    @Test
    void betweenChecksNothingIsLookedAt() throws Exception {
        Path file = dir.resolve("client-quotas.json");
        FileChangeCheck check = new FileChangeCheck(file, Long.MAX_VALUE / 4);
        StateJson.write(file, new Value(1));
        assertThat(check.changed()).as("within the interval").isFalse();
        assertThat(check.changedNow()).isTrue();
    }
}
