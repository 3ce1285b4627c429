package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testing.LogFixture;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The offline commands on a data dir the real engine wrote, while it runs and after it closed. */
class EngineDataDirTest {
    @TempDir
    Path data;

    private void writeWithEngine(DiskStorageEngine engine) throws Exception {
        engine.createTopic("orders", 2, TopicConfig.EMPTY);
        for (int p = 0; p < 2; p++) {
            PartitionLog log = engine.partition(new TopicPartition("orders", p));
            for (int i = 0; i < 60; i++) {
                Compression codec = LogFixture.CODECS.get(i % LogFixture.CODECS.size());
                ByteBuffer batch = LogFixture.batch(0, codec, 20);
                log.append(batch, Acks.ALL, 0).get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void commandsRefuseWhileTheEngineOwnsThePartitionsAndFindAnEngineWrittenDirClean() throws Exception {
        EngineConfig config = EngineConfig.defaults(data).withSegmentBytes(4096).withIndexIntervalBytes(512);
        Path p0 = data.resolve("orders/0");
        try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
            writeWithEngine(engine);
            CliRun recover = CliRun.run(new RecoverCommand(), data.toString());
            assertThat(recover.exit()).as(recover.toString()).isEqualTo(3);
            // The engine holds one lock for its whole data directory, and the tools check it.
            assertThat(recover.err()).contains(data.resolve(".lock") + ": partition is owned by a running broker");
            assertThat(CliRun.run(
                                    new DeleteRecordsCommand(),
                                    "--data-dir",
                                    data.toString(),
                                    "--topic",
                                    "orders",
                                    "--partition",
                                    "0",
                                    "--offset",
                                    "10")
                            .exit())
                    .isEqualTo(3);
            assertThat(CliRun.run(new RebuildIndexCommand(), p0.toString()).exit())
                    .isEqualTo(3);
            CliRun verify = CliRun.run(new VerifyCommand(), data.toString());
            assertThat(verify.exit())
                    .as("verify only reads, so it runs beside a broker: " + verify)
                    .isZero();
        }
        try (var files = Files.list(p0)) {
            assertThat(files.filter(f -> f.toString().endsWith(".log")).count())
                    .as("segments rolled")
                    .isGreaterThan(2);
        }

        CliRun verify = CliRun.run(new VerifyCommand(), data.toString());
        assertThat(verify.exit()).as(verify.toString()).isZero();
        CliRun check =
                CliRun.run(new RebuildIndexCommand(), "--check", "--index-interval-bytes", "512", data.toString());
        assertThat(check.exit())
                .as("rebuild-index writes the engine's bytes: " + check)
                .isZero();

        SortedMap<String, String> before = LogFixture.snapshot(data);
        CliRun recover = CliRun.run(new RecoverCommand(), "--index-interval-bytes", "512", data.toString());
        assertThat(recover.exit()).as(recover.toString()).isZero();
        assertThat(recover.out()).contains(p0 + ": clean;");
        assertThat(LogFixture.snapshot(data))
                .as("recovering a cleanly closed dir changes no byte")
                .isEqualTo(before);

        CliRun dump = CliRun.run(
                new DumpSegmentCommand(),
                "--deep-iteration",
                p0.resolve("00000000-00000000000000000000.log").toString());
        assertThat(dump.exit()).as(dump.toString()).isZero();
        assertThat(dump.out())
                .contains("baseOffset: 0 lastOffset: 19 count: 20")
                .contains("compresscodec: gzip")
                .contains("| offset: 19 ");
    }
}
