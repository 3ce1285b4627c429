package io.kaas.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.format.CleanerSwapIntent;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testfs.FaultyFileSystem;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Scope;
import io.kaas.storage.testfs.TornTail;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The power goes at every fsync of a cleaning pass in turn (the fsync hangs, the power is cut, so
 * nothing after the previous fsync is durable, and unsynced appends are torn as {@link TornTail}
 * says); recovery then runs as a partition open would. Whatever the moment: the log passes its CRCs
 * and reads as written, every offset keeps its record, each key's latest record is still there, no
 * cleaner file is left behind, and the next pass cleans the log completely.
 */
class CleanerSwapAcrossPowerCutsTest {
    private static final long NOW = CleanerScenario.TIMESTAMP + 100_000;

    @ParameterizedTest
    @EnumSource(TornTail.class)
    void aSwapCutAtAnyFsyncIsFinishedOrDiscardedByRecovery(TornTail tail) throws Exception {
        CleanerScenario s = CleanerScenario.generate(42, 60, 6);
        Map<String, CleanerScenario.Written> model = s.latestBelow(s.activeBase());
        int cuts = 0;
        for (int k = 1; ; k++) {
            FileSystem jimfs = Jimfs.newFileSystem(Configuration.unix());
            Path plainDir = Files.createDirectories(jimfs.getPath("/data/t/0"));
            List<SegmentName> names = s.write(plainDir);
            FaultyFileSystem fs = FaultyFileSystem.wrap(jimfs); // what is there now is durable
            try {
                Path dir = fs.getPath("/data/t/0");
                FsyncGate gate = fs.faults().hangFsync(kth(k, Scope.under(dir)));
                CompletableFuture<CleanReport> pass =
                        CompletableFuture.supplyAsync(() -> CleanerProperties.cleaner(NOW, 2)
                                .clean(CleanerProperties.input(dir, names, s, -1), false, b -> {}));
                if (!blocksOrCompletes(gate, pass)) {
                    // k is past the pass's last fsync: it ran to the end; every cut point was tried
                    assertThat(cuts)
                            .as("the pass fsyncs at least once per swap")
                            .isGreaterThan(3);
                    fs.faults().clearFsyncHang();
                    assertCleaned(dir, s, model);
                    return;
                }
                cuts++;
                FaultyFileSystem rebooted = fs.powerCut(tail, k);
                assertThat(pass).failsWithin(Duration.ofSeconds(10));
                fs = rebooted;
                Path after = fs.getPath("/data/t/0");
                RecoveryScan.recoverState(after, RecoveryOptions.forOpen(new IndexPolicy(4096), 0));
                assertNoCleanerFiles(after);
                CleanedLog log = CleanedLog.read(after);
                CleanerProperties.assertSameRecordsAsWritten(log, s);
                assertLatestRecordsKept(log, model, s.activeBase());
                assertCleaned(after, s, model);
            } finally {
                fs.close();
            }
        }
    }

    /** The next pass (from scratch) leaves the log fully cleaned, whatever the cut left. */
    private static void assertCleaned(Path dir, CleanerScenario s, Map<String, CleanerScenario.Written> model)
            throws Exception {
        CleanerProperties.cleaner(NOW, 2)
                .clean(CleanerProperties.input(dir, CleanerProperties.segments(dir), s, 0), false, b -> {});
        CleanedLog log = CleanedLog.read(dir);
        CleanerProperties.assertSameRecordsAsWritten(log, s);
        CleanerProperties.assertLatestPerKey(log, model, s.activeBase(), true);
        CleanerProperties.assertRecoveryAccepts(dir, s.nextOffset);
        assertNoCleanerFiles(dir);
    }

    /** Each key's latest record is there (older ones may be too: the cut may have come before the swap). */
    private static void assertLatestRecordsKept(
            CleanedLog log, Map<String, CleanerScenario.Written> model, long active) {
        Map<String, Long> last = new HashMap<>();
        for (CleanedLog.Read r : log.records) {
            if (!r.control() && r.offset() < active) {
                last.put(r.key(), r.offset());
            }
        }
        model.values().forEach(w -> assertThat(last).containsEntry(w.key(), w.offset()));
    }

    private static void assertNoCleanerFiles(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .noneMatch(
                            n -> n.endsWith(CleanerSwap.CLEANED_SUFFIX) || n.startsWith(CleanerSwapIntent.FILE_NAME));
        }
    }

    /** Holds only the k-th fsync in {@code scope}. */
    private static Scope kth(int k, Scope scope) {
        AtomicInteger seen = new AtomicInteger();
        return p -> scope.includes(p) && seen.incrementAndGet() == k;
    }

    /** True when the pass hangs at the gate, false when it completed first. */
    private static boolean blocksOrCompletes(FsyncGate gate, CompletableFuture<CleanReport> pass) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (gate.blockedCount() > 0) {
                return true;
            }
            if (pass.isDone()) {
                pass.get();
                return false;
            }
            try {
                gate.awaitBlocked(1, Duration.ofMillis(20));
                return true;
            } catch (java.util.concurrent.TimeoutException notYet) {
                // poll the pass again
            }
        }
        throw new AssertionError("the pass neither finished nor reached fsync");
    }
}
