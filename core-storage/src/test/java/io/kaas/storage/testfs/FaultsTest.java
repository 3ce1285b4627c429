package io.kaas.storage.testfs;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each fault switch, armed and cleared at runtime, scoped by path. */
class FaultsTest {
    private FaultyFileSystem fs;
    private Path p0;
    private Path p1;
    private ExecutorService pool;

    @BeforeEach
    void setUp() throws IOException {
        fs = FaultyFileSystem.onJimfs();
        p0 = Files.createDirectories(fs.root().resolve("data/t/0"));
        p1 = Files.createDirectories(fs.root().resolve("data/t/1"));
        pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "faults-test-fsync"));
    }

    @AfterEach
    void tearDown() throws Exception {
        fs.faults().clearAll();
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        fs.close();
    }

    private static ByteBuffer bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i + 1);
        }
        return ByteBuffer.wrap(b);
    }

    private static FileChannel open(Path file) throws IOException {
        return FileChannel.open(file, CREATE, READ, WRITE);
    }

    @Test
    void fsyncFailsOnceThenSucceeds() throws IOException {
        fs.faults().failFsync(Scope.under(p0), Repeat.ONCE);
        try (FileChannel ch = open(p0.resolve("a.log"));
                FileChannel other = open(p1.resolve("a.log"))) {
            other.force(true); // out of scope
            assertThatThrownBy(() -> ch.force(true))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("/data/t/0/a.log")
                    .hasMessageContaining("fsync failed");
            ch.force(true);
        }
    }

    @Test
    void fsyncFailsAlwaysUntilCleared() throws IOException {
        fs.faults().failFsync(Scope.fileNameEndsWith(".log"), Repeat.ALWAYS);
        try (FileChannel log = open(p0.resolve("a.log"));
                FileChannel index = open(p0.resolve("a.index"))) {
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> log.force(false)).isInstanceOf(IOException.class);
            }
            index.force(true);
            fs.faults().clearFsyncFailure();
            log.force(false);
        }
    }

    @Test
    void directoryFsyncCanFailToo() throws IOException {
        fs.faults().failFsync(Scope.path(p0), Repeat.ONCE);
        try (FileChannel d = FileChannel.open(p0, READ)) {
            assertThatThrownBy(() -> d.force(true)).isInstanceOf(IOException.class);
            d.force(true);
        }
    }

    @Test
    void countsForceCallsPerPath() throws IOException {
        try (FileChannel a = open(p0.resolve("a.log"));
                FileChannel b = open(p1.resolve("b.log"))) {
            a.force(true);
            a.force(false);
            b.force(true);
            fs.faults().failFsync(Scope.everything(), Repeat.ONCE);
            assertThatThrownBy(() -> a.force(true)).isInstanceOf(IOException.class);
        }
        assertThat(fs.forceCounts().of(p0.resolve("a.log"))).isEqualTo(3); // failed calls count
        assertThat(fs.forceCounts().of(fs.getPath("/data/t/1/../1/b.log"))).isEqualTo(1);
        assertThat(fs.forceCounts().of(Scope.under(p0))).isEqualTo(3);
        assertThat(fs.forceCounts().total()).isEqualTo(4);
        fs.forceCounts().reset();
        assertThat(fs.forceCounts().total()).isZero();
    }

    @Test
    void fsyncHangsUntilTheGateIsReleased() throws Exception {
        FsyncGate gate = fs.faults().hangFsync(Scope.under(p0));
        try (FileChannel stuck = open(p0.resolve("a.log"));
                FileChannel free = open(p1.resolve("a.log"))) {
            stuck.write(bytes(10));
            CompletableFuture<Void> fsync = CompletableFuture.runAsync(
                    () -> {
                        try {
                            stuck.force(true);
                        } catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    },
                    pool);
            gate.awaitBlocked(1, Duration.ofSeconds(10));
            assertThat(fsync).isNotDone();
            assertThat(fs.forceCounts().of(p0.resolve("a.log"))).isEqualTo(1);
            free.force(true); // other partitions keep going
            gate.release();
            fsync.get(10, TimeUnit.SECONDS);
            assertThat(gate.blockedCount()).isZero();
            assertThat(gate.totalBlocked()).isEqualTo(1);
            stuck.force(true); // a released gate no longer holds anyone
        }
    }

    @Test
    void awaitBlockedTimesOutWhenNobodyIsStuck() {
        FsyncGate gate = fs.faults().hangFsync(Scope.everything());
        assertThatThrownBy(() -> gate.awaitBlocked(1, Duration.ofMillis(20)))
                .isInstanceOf(java.util.concurrent.TimeoutException.class);
    }

    @Test
    void shortWriteHappensOnce() throws IOException {
        fs.faults().shortWriteOnce(Scope.fileNameEndsWith(".log"), 3);
        try (FileChannel ch = open(p0.resolve("a.log"))) {
            ByteBuffer src = bytes(10);
            assertThat(ch.write(src)).isEqualTo(3);
            assertThat(src.position()).isEqualTo(3);
            assertThat(ch.size()).isEqualTo(3);
            assertThat(ch.write(src)).isEqualTo(7);
            assertThat(ch.size()).isEqualTo(10);
        }
        assertThat(Files.readAllBytes(p0.resolve("a.log"))).isEqualTo(bytes(10).array());
    }

    @Test
    void shortWriteOfAPositionalWriteAndOfAGatheringWrite() throws IOException {
        try (FileChannel ch = open(p0.resolve("a.log"))) {
            fs.faults().shortWriteOnce(Scope.everything(), 4);
            assertThat(ch.write(bytes(10), 100)).isEqualTo(4);
            assertThat(ch.size()).isEqualTo(104);
            fs.faults().shortWriteOnce(Scope.everything(), 5);
            ByteBuffer first = bytes(3);
            ByteBuffer second = bytes(4);
            ch.position(0);
            assertThat(ch.write(new ByteBuffer[] {first, second})).isEqualTo(5);
            assertThat(first.hasRemaining()).isFalse();
            assertThat(second.remaining()).isEqualTo(2);
        }
    }

    @Test
    void diskFullFailsTheWholeWriteThenSpaceReturns() throws IOException {
        fs.faults().diskFullAfter(15, DiskFullMode.FAIL_WHOLE_WRITE);
        try (FileChannel ch = open(p0.resolve("a.log"))) {
            assertThat(ch.write(bytes(10))).isEqualTo(10);
            assertThatThrownBy(() -> ch.write(bytes(10)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("No space left on device")
                    .hasMessageContaining("a.log");
            assertThat(ch.size()).isEqualTo(10);
            assertThat(fs.faults().remainingSpace()).isEqualTo(5);
            assertThat(ch.write(bytes(5))).isEqualTo(5); // what fits still fits
            assertThatThrownBy(() -> ch.write(bytes(1))).isInstanceOf(IOException.class);
            fs.faults().spaceReturns();
            assertThat(ch.write(bytes(10))).isEqualTo(10);
            assertThat(ch.size()).isEqualTo(25);
        }
    }

    @Test
    void diskFullCountsEveryFile() throws IOException {
        fs.faults().diskFullAfter(10, DiskFullMode.FAIL_WHOLE_WRITE);
        try (FileChannel a = open(p0.resolve("a.log"));
                FileChannel b = open(p1.resolve("b.log"))) {
            a.write(bytes(6));
            assertThatThrownBy(() -> b.write(bytes(6))).isInstanceOf(IOException.class);
        }
    }

    @Test
    void diskFullCanLeaveAPrefixBehindAndThrow() throws IOException {
        fs.faults().diskFullAfter(4, DiskFullMode.WRITE_PREFIX_THEN_THROW);
        try (FileChannel ch = open(p0.resolve("a.log"))) {
            ByteBuffer src = bytes(10);
            assertThatThrownBy(() -> ch.write(src)).hasMessageContaining("No space left on device");
            assertThat(ch.size()).isEqualTo(4); // a torn write a reader must not see as a batch
            assertThatThrownBy(() -> ch.write(bytes(1))).isInstanceOf(IOException.class);
        }
    }

    @Test
    void diskFullAsLinuxDoesIt() throws IOException {
        fs.faults().diskFullAfter(4, DiskFullMode.SHORT_WRITE);
        try (FileChannel ch = open(p0.resolve("a.log"))) {
            ByteBuffer src = bytes(10);
            assertThat(ch.write(src)).isEqualTo(4);
            assertThatThrownBy(() -> ch.write(src)).hasMessageContaining("No space left on device");
            assertThat(src.remaining()).isEqualTo(6);
        }
    }

    @Test
    void readsFailForMatchingPathsOnly() throws IOException {
        Path bad = Files.write(p0.resolve("a.log"), bytes(8).array());
        Path good = Files.write(p1.resolve("a.log"), bytes(8).array());
        fs.faults().failReads(Scope.under(p0), Repeat.ALWAYS);
        assertThatThrownBy(() -> Files.readAllBytes(bad))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("/data/t/0/a.log")
                .hasMessageContaining("read at byte 0");
        try (FileChannel ch = FileChannel.open(bad, READ)) {
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(4), 4)).hasMessageContaining("read at byte 4");
        }
        assertThat(Files.readAllBytes(good)).hasSize(8);
        fs.faults().clearReadFailure();
        assertThat(Files.readAllBytes(bad)).hasSize(8);
    }

    @Test
    void readFailsOnce() throws IOException {
        Path file = Files.write(p0.resolve("a.log"), bytes(8).array());
        fs.faults().failReads(Scope.everything(), Repeat.ONCE);
        assertThatThrownBy(() -> Files.readAllBytes(file)).isInstanceOf(IOException.class);
        assertThat(Files.readAllBytes(file)).hasSize(8);
    }

    @Test
    void writesAreRejectedBeforeAnyByteLandsWhenTheDiskIsFullAlready() throws IOException {
        fs.faults().diskFullAfter(0, DiskFullMode.WRITE_PREFIX_THEN_THROW);
        Path file = p0.resolve("a.json");
        assertThatThrownBy(() -> Files.write(file, bytes(3).array())).isInstanceOf(IOException.class);
        assertThat(Files.size(file)).isZero();
    }
}
