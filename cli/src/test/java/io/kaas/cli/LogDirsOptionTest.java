package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.layout.LogDirs;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --log-dirs}: ls, verify, recover, rebuild-index, compact, cat, dump-segment and delete-records over a broker's whole pool of log dirs (KIP-112). */
class LogDirsOptionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private String pool;

    @BeforeEach
    void aPoolOfThreeDirsWithOnePartitionEach() throws Exception {
        pool = dir.resolve("d0") + "," + dir.resolve("d1") + "," + dir.resolve("d2");
        LogDirs dirs = LogDirs.parse(pool);
        try (DiskStorageEngine engine =
                new DiskStorageEngine(EngineConfig.defaults(dirs.home().path()).withLogDirs(dirs))) {
            engine.createTopic("t", 3, TopicConfig.EMPTY);
            for (int p = 0; p < 3; p++) {
                engine.partition(new TopicPartition("t", p))
                        .append(TestBatches.batch(5, 1), Acks.ALL, -1)
                        .get();
            }
        }
    }

    @Test
    void lsListsThePartitionsOfEveryDir() throws Exception {
        KaasRun ls = KaasRun.of("ls", "--json", "--log-dirs", pool);
        assertThat(ls.exitCode()).as(ls.toString()).isZero();
        List<String> lines = ls.out().lines().toList();
        assertThat(lines).hasSize(4);
        JsonNode summary = JSON.readTree(lines.get(3));
        assertThat(summary.get("partitions").asInt()).isEqualTo(3);
        assertThat(summary.get("topics").asInt()).isEqualTo(1);
    }

    @Test
    void verifyAndRecoverWorkOnEveryDirAndTheWorstExitCodeWins() throws Exception {
        KaasRun clean = KaasRun.of("verify", "--json", "--log-dirs", pool);
        assertThat(clean.exitCode()).as(clean.toString()).isZero();
        List<String> lines = clean.out().lines().toList();
        assertThat(JSON.readTree(lines.get(lines.size() - 1)).get("partitions").asInt())
                .isEqualTo(3);
        assertThat(KaasRun.of("recover", "--dry-run", "--log-dirs", pool).exitCode())
                .isZero();

        Path log;
        try (var s = Files.list(dir.resolve("d2/t/2"))) {
            log = s.filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
        }
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {0x7f}), 70); // a record byte: the CRC no longer matches
        }
        KaasRun damaged = KaasRun.of("verify", "--log-dirs", pool);
        assertThat(damaged.exitCode()).as(damaged.toString()).isEqualTo(1);
        assertThat(damaged.out()).contains(log.toString());
        assertThat(KaasRun.of("recover", "--dry-run", "--log-dirs", pool).exitCode())
                .isEqualTo(1);
    }

    @Test
    void catFindsEachPartitionInWhicheverDirHoldsIt() throws Exception {
        KaasRun cat = KaasRun.of("cat", "--log-dirs", pool, "--no-progress", "-f", "%p %o\\n", "t-0", "t-1", "t-2");
        assertThat(cat.exitCode()).as(cat.toString()).isZero();
        assertThat(cat.out().lines().toList()).hasSize(15).contains("0 0", "1 4", "2 4");
        KaasRun missing = KaasRun.of("cat", "--log-dirs", pool, "t-3");
        assertThat(missing.exitCode()).as(missing.toString()).isNotZero();
        assertThat(missing.err()).contains("no partition t-3 in any of");
    }

    @Test
    void dumpSegmentDumpsAPartitionFromWhicheverDirHoldsIt() throws Exception {
        KaasRun dump = KaasRun.of("dump-segment", "--log-dirs", pool, "t-1");
        assertThat(dump.exitCode()).as(dump.toString()).isZero();
        assertThat(dump.out()).contains(dir.resolve("d1/t/1").toString()).contains("baseOffset: 0 lastOffset: 4");
        KaasRun missing = KaasRun.of("dump-segment", "--log-dirs", pool, "t-9");
        assertThat(missing.exitCode()).as(missing.toString()).isNotZero();
        assertThat(missing.err()).contains("no partition t-9 in any of");
        assertThat(KaasRun.of("dump-segment", "--log-dirs", pool, "not-a-partition")
                        .exitCode())
                .isEqualTo(2);
    }

    @Test
    void rebuildIndexCompactAndDeleteRecordsWorkOnThePool() throws Exception {
        KaasRun check = KaasRun.of("rebuild-index", "--check", "--log-dirs", pool);
        assertThat(check.exitCode()).as(check.toString()).isZero();
        Path index;
        try (var s = Files.list(dir.resolve("d1/t/1"))) {
            index = s.filter(p -> p.toString().endsWith(".index")).findFirst().orElseThrow();
        }
        Files.delete(index);
        assertThat(KaasRun.of("rebuild-index", "--check", "--log-dirs", pool).exitCode())
                .isEqualTo(1);
        KaasRun rebuilt = KaasRun.of("rebuild-index", "--log-dirs", pool);
        assertThat(rebuilt.exitCode()).as(rebuilt.toString()).isZero();
        assertThat(index).exists();

        KaasRun compact = KaasRun.of("compact", "--no-progress", "--log-dirs", pool);
        assertThat(compact.exitCode()).as(compact.toString()).isZero();

        KaasRun purge =
                KaasRun.of("delete-records", "--log-dirs", pool, "--topic", "t", "--partition", "2", "--offset", "3");
        assertThat(purge.exitCode()).as(purge.toString()).isZero();
        assertThat(purge.out()).contains("partition: t-2\tlow_watermark: 3");
        KaasRun missing =
                KaasRun.of("delete-records", "--log-dirs", pool, "--topic", "t", "--partition", "7", "--offset", "0");
        assertThat(missing.exitCode()).isEqualTo(3);
        assertThat(missing.out()).contains(dir.resolve("d2/t/7").toString());
    }

    @Test
    void pathAndLogDirsTogetherOrNeitherIsAUsageError() {
        assertThat(KaasRun.of("verify", "--log-dirs", pool, dir.toString()).exitCode())
                .isEqualTo(2);
        assertThat(KaasRun.of("verify").exitCode()).isEqualTo(2);
        assertThat(KaasRun.of("recover", "--log-dirs", "[{\"name\":\"x\"}]").exitCode())
                .isEqualTo(2);
    }
}
