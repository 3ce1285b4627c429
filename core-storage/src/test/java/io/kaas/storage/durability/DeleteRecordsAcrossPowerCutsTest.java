package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Scope;
import io.kaas.storage.testfs.TornTail;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression: an acknowledged DeleteRecords is durable even when the records it deleted were not
 * (acks=1, lost in the cut). Recovery used to clamp log start to the shorter recovered log, so log
 * start moved back and the offsets below the acknowledged purge were handed out again.
 */
class DeleteRecordsAcrossPowerCutsTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private FaultyDisk disk;

    @BeforeEach
    void setUp() throws Exception {
        disk = FaultyDisk.create();
        disk.open().createTopic("t", 1, TopicConfig.EMPTY);
    }

    @AfterEach
    void tearDown() throws Exception {
        disk.close();
    }

    @Test
    void logStartNeverMovesBackBelowAnAcknowledgedDeleteRecords() throws Exception {
        PartitionLog log = disk.engine().partition(TP);
        // Hold the committer's fsync of the log: the acks=1 batch stays in the page cache only.
        FsyncGate gate = disk.fs().faults().hangFsync(Scope.fileNameEndsWith(".log"));
        log.append(TestBatches.batch(3, 1_000L), Acks.LEADER, -1).get(10, TimeUnit.SECONDS);
        long purged = log.deleteRecords(-1);
        assertThat(purged).isEqualTo(3);
        gate.awaitBlocked(1, java.time.Duration.ofSeconds(10));

        // the acks=1 batch never reached the disk; the purge did
        PartitionLog reopened = disk.powerCutAndReopen(TornTail.DROP, 0).partition(TP);
        assertThat(reopened.state().logStartOffset()).isEqualTo(purged);
        assertThat(reopened.state().highWatermark()).isEqualTo(purged);
        assertThat(reopened.append(TestBatches.batch(1, 1_000L), Acks.ALL, -1)
                        .get(10, TimeUnit.SECONDS)
                        .baseOffset())
                .as("offsets below an acknowledged purge are never handed out again")
                .isEqualTo(purged);
        assertThat(reopened.read(purged, 1 << 20, Long.MAX_VALUE).records().getLong(0))
                .isEqualTo(purged);

        // And the same state survives another reopen (full scan, no checkpoint help).
        DiskStorageEngine engine = disk.reopen();
        assertThat(engine.partition(TP).state().logStartOffset()).isEqualTo(purged);
        assertThat(engine.partition(TP).state().highWatermark()).isEqualTo(purged + 1);
    }

    /** The purge is durable twice (log-start.json, then the manifest): a manifest damaged after the cut loses nothing. */
    @Test
    void aDamagedManifestAfterThePowerCutKeepsTheAcknowledgedLogStart() throws Exception {
        PartitionLog log = disk.engine().partition(TP);
        for (int i = 0; i < 3; i++) {
            log.append(TestBatches.batch(2, 1_000L), Acks.ALL, -1).get(10, TimeUnit.SECONDS);
        }
        long purged = log.deleteRecords(3);
        disk.cutPower(TornTail.DROP, 0);
        disk.closeEngineQuietly();
        java.nio.file.Path dir = disk.partitionDir(TP);
        assertThat(StateJson.read(dir.resolve(LogStart.FILE_NAME), LogStart.class))
                .hasValueSatisfying(c -> assertThat(c.logStartOffset()).isEqualTo(purged));
        java.nio.file.Files.write(
                dir.resolve(Manifest.FILE_NAME),
                "{\"epoch\":0,\"highWat".getBytes(java.nio.charset.StandardCharsets.UTF_8));

        PartitionLog reopened = disk.open().partition(TP);
        assertThat(reopened.state().logStartOffset())
                .as("deleted records never come back")
                .isEqualTo(purged);
        assertThat(reopened.state().highWatermark()).isEqualTo(6);
    }
}
