package io.kaas.storage.testfs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.io.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** After a power cut the filesystem holds exactly what fsync of files and directories made durable. */
class PowerCutTest {
    private FaultyFileSystem fs;
    private Path dir;

    @BeforeEach
    void setUp() throws IOException {
        fs = FaultyFileSystem.wrap(Jimfs.newFileSystem(Configuration.unix()));
        dir = Files.createDirectories(fs.root().resolve("data/t/0"));
        syncDirs(dir); // the partition directory itself is durable from here on
    }

    @AfterEach
    void tearDown() throws IOException {
        fs.close();
    }

    /** fsyncs {@code path} and every parent up to the root, as a careful engine does after mkdirs. */
    private static void syncDirs(Path path) throws IOException {
        for (Path p = path; p != null; p = p.getParent()) {
            AtomicFile.fsyncDirectory(p);
        }
    }

    private static void write(Path file, String content, boolean fsync) throws IOException {
        try (FileChannel ch = FileChannel.open(file, CREATE, WRITE)) {
            ch.write(ByteBuffer.wrap(content.getBytes(UTF_8)), ch.size());
            if (fsync) {
                ch.force(true);
            }
        }
    }

    private FaultyFileSystem cut() throws IOException {
        FaultyFileSystem after = fs.powerCut();
        fs = after;
        return after;
    }

    private Path after(Path before) {
        return fs.pathOf(before);
    }

    @Test
    void createdAndWrittenWithoutAnyFsyncVanishes() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "lost", false);
        cut();
        assertThat(Files.exists(after(file))).isFalse();
        assertThat(Files.isDirectory(after(dir))).isTrue();
    }

    @Test
    void fileFsyncedButDirectoryNotVanishes() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "fsynced but unreachable", true);
        cut();
        assertThat(Files.exists(after(file))).isFalse();
    }

    @Test
    void fileAndDirectoryFsyncedSurvives() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "durable", true);
        AtomicFile.fsyncDirectory(dir);
        cut();
        assertThat(Files.readString(after(file))).isEqualTo("durable");
    }

    @Test
    void directoryFsyncedButFileNotLeavesAnEmptyFile() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "data never synced", false);
        AtomicFile.fsyncDirectory(dir);
        cut();
        assertThat(Files.size(after(file))).isZero();
    }

    @Test
    void bytesAfterTheLastFsyncAreDropped() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "acked;", true);
        AtomicFile.fsyncDirectory(dir);
        write(file, "not acked", false);
        assertThat(Files.readString(file)).isEqualTo("acked;not acked");
        cut();
        assertThat(Files.readString(after(file))).isEqualTo("acked;");
    }

    @Test
    void fsyncThroughAnyChannelMakesTheWholeFileDurable() throws IOException {
        Path file = dir.resolve("a.log");
        try (FileChannel writer = FileChannel.open(file, CREATE, WRITE);
                FileChannel syncer = FileChannel.open(file, READ)) {
            writer.write(ByteBuffer.wrap("one".getBytes(UTF_8)));
            syncer.force(true);
            writer.write(ByteBuffer.wrap("two".getBytes(UTF_8)));
        }
        AtomicFile.fsyncDirectory(dir);
        cut();
        assertThat(Files.readString(after(file))).isEqualTo("one");
    }

    @Test
    void unsyncedOverwriteAndTruncateAreUndone() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "0123456789", true);
        AtomicFile.fsyncDirectory(dir);
        try (FileChannel ch = FileChannel.open(file, WRITE)) {
            ch.write(ByteBuffer.wrap("XX".getBytes(UTF_8)), 2);
            ch.truncate(5);
        }
        assertThat(Files.readString(file)).isEqualTo("01XX4");
        cut();
        assertThat(Files.readString(after(file))).isEqualTo("0123456789");
    }

    @Test
    void syncedTruncateIsKept() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "0123456789", true);
        AtomicFile.fsyncDirectory(dir);
        try (FileChannel ch = FileChannel.open(file, WRITE)) {
            ch.truncate(4);
            ch.write(ByteBuffer.wrap("ab".getBytes(UTF_8)), 6); // leaves a hole of zeros
            ch.force(true);
        }
        cut();
        assertThat(Files.readAllBytes(after(file))).containsExactly('0', '1', '2', '3', 0, 0, 'a', 'b');
    }

    @Test
    void renameIsDurableOnlyAfterTheDirectoryFsync() throws IOException {
        Path target = dir.resolve("manifest.json");
        Path tmp = dir.resolve("manifest.json.tmp");
        write(target, "old", true);
        AtomicFile.fsyncDirectory(dir);

        write(tmp, "new", true);
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        cut();
        assertThat(Files.readString(after(target))).isEqualTo("old");
        assertThat(Files.exists(after(tmp))).isFalse();

        write(after(tmp), "new", true);
        Files.move(after(tmp), after(target), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        AtomicFile.fsyncDirectory(after(dir));
        cut();
        assertThat(Files.readString(after(target))).isEqualTo("new");
        assertThat(Files.exists(after(tmp))).isFalse();
    }

    @Test
    void renameWithoutFsyncOfTheRenamedFileKeepsOnlyWhatWasSynced() throws IOException {
        Path target = dir.resolve("manifest.json");
        Path tmp = dir.resolve("manifest.json.tmp");
        write(target, "old", true);
        write(tmp, "new", false); // the classic bug: rename before fsync of the data
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        AtomicFile.fsyncDirectory(dir);
        cut();
        assertThat(Files.size(after(target))).isZero();
    }

    @Test
    void atomicFileLeavesOldOrNewNeverNeither() throws IOException {
        Path target = dir.resolve("recovery-checkpoint.json");
        AtomicFile.write(target, "v1".getBytes(UTF_8));
        cut();
        assertThat(Files.readString(after(target))).isEqualTo("v1");
        AtomicFile.write(after(target), "v2".getBytes(UTF_8));
        cut();
        assertThat(Files.readString(after(target))).isEqualTo("v2");
    }

    @Test
    void unsyncedUnlinkReappearsWithItsDurableContent() throws IOException {
        Path file = dir.resolve("00000000-00000000000000000000.log");
        write(file, "segment", true);
        AtomicFile.fsyncDirectory(dir);
        write(file, " + unsynced", false);
        Files.delete(file);
        cut();
        assertThat(Files.readString(after(file))).isEqualTo("segment");

        Files.delete(after(file));
        AtomicFile.fsyncDirectory(after(dir));
        cut();
        assertThat(Files.exists(after(file))).isFalse();
    }

    @Test
    void newDirectoryNeedsItsParentSyncedAndItsOwnEntriesNeedItselfSynced() throws IOException {
        Path partition = dir.resolveSibling("1");
        Files.createDirectory(partition);
        write(partition.resolve("a.log"), "x", true);
        AtomicFile.fsyncDirectory(partition);
        cut();
        assertThat(Files.exists(after(partition))).isFalse(); // parent "t" never synced

        Files.createDirectory(after(partition));
        write(after(partition).resolve("a.log"), "x", true);
        AtomicFile.fsyncDirectory(after(partition).getParent());
        cut();
        assertThat(after(partition)).isDirectory();
        assertThat(Files.exists(after(partition).resolve("a.log"))).isFalse(); // partition dir never synced
    }

    @Test
    void directoryRenameIsUndoneUntilSynced() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "x", true);
        AtomicFile.fsyncDirectory(dir);
        Path renamed = dir.resolveSibling("0-delete");
        Files.move(dir, renamed);
        cut();
        assertThat(Files.readString(after(file))).isEqualTo("x");
        assertThat(Files.exists(after(renamed))).isFalse();

        Files.move(after(dir), after(renamed));
        AtomicFile.fsyncDirectory(after(renamed).getParent());
        cut();
        assertThat(Files.readString(after(renamed).resolve("a.log"))).isEqualTo("x");
        assertThat(Files.exists(after(dir))).isFalse();
    }

    @Test
    void untouchedFilesFromBeforeTheLastCutAreRestoredByIdentityToo() throws IOException {
        Path a = dir.resolve("a.log");
        write(a, "kept", true);
        AtomicFile.fsyncDirectory(dir);
        cut(); // now "a.log" is a file the new instance found, never written through it
        Path b = after(dir).resolve("b.log");
        Files.move(after(a), b);
        cut();
        assertThat(Files.readString(after(a))).isEqualTo("kept");
        assertThat(Files.exists(after(b))).isFalse();
        cut(); // and a cut with nothing changed leaves it alone
        assertThat(Files.readString(after(a))).isEqualTo("kept");
    }

    @Test
    void keepsModificationTimes() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "x", true);
        AtomicFile.fsyncDirectory(dir);
        FileTime old = FileTime.fromMillis(1_600_000_000_000L);
        Files.setLastModifiedTime(file, old);
        cut();
        assertThat(Files.getLastModifiedTime(after(file))).isEqualTo(old);
    }

    @Test
    void tornTailKeepsAPrefixOfTheUnsyncedAppend() throws IOException {
        Path file = dir.resolve("a.log");
        String synced = "synced|";
        String unsynced = "0123456789abcdefghijklmnopqrstuvwxyz";
        Set<Integer> lengths = new HashSet<>();
        for (long seed = 0; seed < 20; seed++) {
            write(after(file), synced, true);
            AtomicFile.fsyncDirectory(after(dir));
            write(after(file), unsynced, false);
            fs = fs.powerCut(TornTail.KEEP_RANDOM_PREFIX, seed);
            String content = Files.readString(after(file));
            assertThat(synced + unsynced).startsWith(content);
            assertThat(content).startsWith(synced);
            lengths.add(content.length());
            Files.delete(after(file));
        }
        assertThat(lengths).hasSizeGreaterThan(3); // the seed really varies the cut
    }

    @Test
    void tornTailCanBeZeros() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "synced", true);
        AtomicFile.fsyncDirectory(dir);
        write(file, "x".repeat(1000), false);
        fs = fs.powerCut(TornTail.ZERO_FILL_RANDOM_LENGTH, 42);
        byte[] content = Files.readAllBytes(after(file));
        assertThat(new String(content, 0, 6, UTF_8)).isEqualTo("synced");
        assertThat(content.length).isGreaterThan(6); // seed 42 keeps some of the 1000 bytes
        for (int i = 6; i < content.length; i++) {
            assertThat(content[i]).as("byte %d", i).isZero();
        }
    }

    @Test
    void sameSeedSameCut() throws IOException {
        byte[][] results = new byte[2][];
        for (int run = 0; run < 2; run++) {
            Path file = after(dir).resolve("a.log");
            write(file, "s", true);
            AtomicFile.fsyncDirectory(after(dir));
            write(file, "u".repeat(500), false);
            fs = fs.powerCut(TornTail.KEEP_RANDOM_PREFIX, 7);
            results[run] = Files.readAllBytes(after(file));
            Files.delete(after(file));
            AtomicFile.fsyncDirectory(after(dir));
        }
        assertThat(results[0]).isEqualTo(results[1]);
    }

    @Test
    void theOldWorldIsDeadAfterTheCut() throws IOException {
        Path file = dir.resolve("a.log");
        FaultyFileSystem before = fs;
        FileChannel ch = FileChannel.open(file, CREATE, WRITE);
        ch.write(ByteBuffer.wrap("x".getBytes(UTF_8)));
        cut();
        assertThat(before.isPowered()).isFalse();
        assertThatThrownBy(() -> ch.write(ByteBuffer.wrap("y".getBytes(UTF_8)))).isInstanceOf(PowerLostException.class);
        assertThatThrownBy(() -> ch.force(true)).isInstanceOf(PowerLostException.class);
        assertThatThrownBy(() -> Files.writeString(file, "z")).isInstanceOf(PowerLostException.class);
        assertThatThrownBy(() -> Files.size(file)).isInstanceOf(PowerLostException.class);
        assertThatThrownBy(() -> Files.createDirectory(dir.resolve("x"))).isInstanceOf(PowerLostException.class);
        assertThatThrownBy(before::powerCut).isInstanceOf(PowerLostException.class);
        assertThatThrownBy(() -> Files.setLastModifiedTime(dir, FileTime.fromMillis(0)))
                .isInstanceOf(PowerLostException.class);
        ch.close();
        assertThat(Files.exists(after(file))).isFalse(); // and nothing leaked into the new one
    }

    @Test
    void aHungFsyncFailsWhenThePowerGoesAndItsDataIsLost() throws Exception {
        Path file = dir.resolve("a.log");
        write(file, "acked", true);
        AtomicFile.fsyncDirectory(dir);
        FsyncGate gate = fs.faults().hangFsync(Scope.path(file));
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "power-cut-test-fsync"));
        try (FileChannel ch = FileChannel.open(file, WRITE)) {
            ch.write(ByteBuffer.wrap("pending".getBytes(UTF_8)), 5);
            CompletableFuture<Void> fsync = CompletableFuture.runAsync(
                    () -> {
                        try {
                            ch.force(true);
                        } catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    },
                    pool);
            gate.awaitBlocked(1, Duration.ofSeconds(10));
            cut();
            assertThatThrownBy(() -> fsync.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasRootCauseInstanceOf(IOException.class);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(Files.readString(after(file))).isEqualTo("acked");
    }

    @Test
    void aFailedFsyncMakesNothingDurable() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "acked", true);
        AtomicFile.fsyncDirectory(dir);
        fs.faults().failFsync(Scope.everything(), Repeat.ONCE);
        try (FileChannel ch = FileChannel.open(file, WRITE)) {
            ch.write(ByteBuffer.wrap("refused".getBytes(UTF_8)), 5);
            assertThatThrownBy(() -> ch.force(true)).isInstanceOf(IOException.class);
        }
        cut();
        assertThat(Files.readString(after(file))).isEqualTo("acked");
    }

    @Test
    void theNewInstanceStartsWithNoFaultsAndEverythingDurable() throws IOException {
        Path file = dir.resolve("a.log");
        write(file, "x", true);
        AtomicFile.fsyncDirectory(dir);
        fs.faults().failFsync(Scope.everything(), Repeat.ALWAYS);
        cut();
        try (FileChannel ch = FileChannel.open(after(file), WRITE)) {
            ch.force(true);
        }
        cut(); // nothing changed since the reboot, so nothing is lost
        assertThat(Files.readString(after(file))).isEqualTo("x");
        assertThat(after(dir)).isDirectory();
    }

    @Test
    void filesPresentWhenWrappedAreDurable() throws IOException {
        com.google.common.jimfs.Configuration config = Configuration.unix();
        java.nio.file.FileSystem jimfs = Jimfs.newFileSystem(config);
        Files.createDirectories(jimfs.getPath("/data/t/0"));
        Files.writeString(jimfs.getPath("/data/t/0/a.log"), "pre-existing");
        try (FaultyFileSystem wrapped = FaultyFileSystem.wrap(jimfs)) {
            Path file = wrapped.getPath("/data/t/0/a.log");
            write(file, " more", false);
            FaultyFileSystem rebooted = wrapped.powerCut();
            assertThat(Files.readString(rebooted.pathOf(file))).isEqualTo("pre-existing");
            rebooted.close();
        }
    }

    @Test
    void powerCutOverTheDefaultFilesystem(@TempDir Path temp) throws IOException {
        Files.writeString(temp.resolve("existing.json"), "{}");
        FaultyFileSystem real = FaultyFileSystem.wrap(temp);
        Path durable = real.root().resolve("durable.log");
        Path lost = real.root().resolve("lost.log");
        write(durable, "kept", true);
        AtomicFile.fsyncDirectory(real.root());
        write(durable, "+dropped", false);
        write(lost, "gone", true);
        FaultyFileSystem rebooted = real.powerCut();
        assertThat(Files.readString(temp.resolve("durable.log"))).isEqualTo("kept");
        assertThat(Files.exists(temp.resolve("lost.log"))).isFalse();
        assertThat(Files.readString(temp.resolve("existing.json"))).isEqualTo("{}");
        assertThat(Arrays.asList(temp.toFile().list())).containsExactlyInAnyOrder("durable.log", "existing.json");
        rebooted.close();
    }
}
