package io.kaas.storage.io;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.testfs.FaultyFileSystem;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Repeat;
import io.kaas.storage.testfs.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Group-committed state files on the fault-injecting filesystem: changes handed over during a round share the next
 * round's fsyncs; an answered write survives a power cut, an unanswered one is all or nothing; a failed fsync fails
 * its round and leaves the old content; a deletion is durable once answered; reads see what was handed over.
 */
class CoalescingStateFilesTest {
    private FaultyFileSystem fs;
    private Path dir;
    private CoalescingStateFiles files;

    @BeforeEach
    void setUp() throws Exception {
        fs = FaultyFileSystem.onJimfs();
        dir = fs.root().resolve("data/__cluster/share_groups");
        files = new CoalescingStateFiles(dir, "test-state-writer");
    }

    @AfterEach
    void tearDown() throws Exception {
        files.close();
        fs.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    private static void await(CompletableFuture<Void> f) throws Exception {
        f.get(30, TimeUnit.SECONDS);
    }

    @Test
    void changesHandedOverDuringARoundShareTheNextRound() throws Exception {
        await(files.write("g.json", bytes("v0")));
        long before = files.rounds();
        FsyncGate gate = fs.faults().hangFsync(Scope.fileNameEndsWith(".tmp"));
        CompletableFuture<Void> first = files.write("g.json", bytes("v1"));
        gate.awaitBlocked(1, Duration.ofSeconds(30));
        List<CompletableFuture<Void>> rest = new ArrayList<>();
        for (int i = 2; i <= 50; i++) {
            rest.add(files.write("g.json", bytes("v" + i)));
            rest.add(files.write("h" + (i % 3) + ".json", bytes("h" + i)));
        }
        assertThat(rest).noneMatch(CompletableFuture::isDone);
        fs.faults().clearFsyncHang();
        await(first);
        for (CompletableFuture<Void> f : rest) {
            await(f);
        }
        // The hung round, then one round for the 98 changes handed over meanwhile.
        assertThat(files.rounds() - before).isEqualTo(2);
        assertThat(Files.readString(dir.resolve("g.json"))).isEqualTo("v50");
        assertThat(Files.readString(dir.resolve("h2.json"))).isEqualTo("h50");
    }

    @Test
    void anAnsweredWriteSurvivesAPowerCutAndAnUnansweredOneIsAllOrNothing() throws Exception {
        await(files.write("g.json", bytes("answered")));
        FsyncGate gate = fs.faults().hangFsync(Scope.fileNameEndsWith(".tmp"));
        CompletableFuture<Void> unanswered = files.write("g.json", bytes("never answered"));
        gate.awaitBlocked(1, Duration.ofSeconds(30));
        FaultyFileSystem rebooted = fs.powerCut();
        assertThatThrownBy(() -> unanswered.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(StorageException.class);
        files.close();
        fs = rebooted;
        Path again = rebooted.pathOf(dir);
        assertThat(Files.readString(again.resolve("g.json"))).isEqualTo("answered");
        files = new CoalescingStateFiles(again, "test-state-writer");
        assertThat(files.read("g.json"))
                .hasValueSatisfying(b -> assertThat(new String(b, UTF_8)).isEqualTo("answered"));

        await(files.write("g.json", bytes("answered after the reboot")));
        FaultyFileSystem second = fs.powerCut();
        files.close();
        fs = second;
        assertThat(Files.readString(second.pathOf(again).resolve("g.json"))).isEqualTo("answered after the reboot");
        files = new CoalescingStateFiles(second.pathOf(again), "test-state-writer");
    }

    @Test
    void aFailedFsyncFailsItsRoundAndKeepsTheOldContent() throws Exception {
        await(files.write("g.json", bytes("old")));
        fs.faults().failFsync(Scope.fileNameEndsWith(".tmp"), Repeat.ONCE);
        assertThatThrownBy(() -> files.write("g.json", bytes("lost")).get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(StorageException.class);
        assertThat(Files.readString(dir.resolve("g.json"))).isEqualTo("old");
        await(files.write("g.json", bytes("new")));
        assertThat(Files.readString(dir.resolve("g.json"))).isEqualTo("new");
    }

    @Test
    void aDeletionIsDurableOnceAnsweredAndReadsSeeWhatWasHandedOver() throws Exception {
        await(files.write("g.json", bytes("state")));
        FsyncGate gate = fs.faults().hangFsync(Scope.fileNameEndsWith(".tmp"));
        CompletableFuture<Void> other = files.write("other.json", bytes("x"));
        gate.awaitBlocked(1, Duration.ofSeconds(30));
        CompletableFuture<Void> deleted = files.delete("g.json");
        CompletableFuture<Void> newer = files.write("other.json", bytes("y"));
        assertThat(files.read("g.json")).isEmpty();
        assertThat(files.exists("g.json")).isFalse();
        assertThat(files.read("other.json"))
                .hasValueSatisfying(b -> assertThat(new String(b, UTF_8)).isEqualTo("y"));
        fs.faults().clearFsyncHang();
        await(other);
        await(deleted);
        await(newer);
        FaultyFileSystem rebooted = fs.powerCut();
        files.close();
        fs = rebooted;
        Path again = rebooted.pathOf(dir);
        assertThat(again.resolve("g.json")).doesNotExist();
        assertThat(Files.readString(again.resolve("other.json"))).isEqualTo("y");
        files = new CoalescingStateFiles(again, "test-state-writer");
    }

    @Test
    void aClosedWriterRefusesAndFinishesWhatItWasHandedFirst() throws Exception {
        CompletableFuture<Void> last = files.write("g.json", bytes("last"));
        files.close();
        await(last);
        assertThat(Files.readString(dir.resolve("g.json"))).isEqualTo("last");
        assertThatThrownBy(() -> files.write("g.json", bytes("late")).get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(StorageException.class);
    }
}
