package io.kaas.storage.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Derivable hints that are damaged are rebuilt, never used as evidence against intact batches; a damaged topic config refuses. */
class DamagedHintsTest {
    @TempDir
    Path data;

    private static RecoveryOptions open(boolean dryRun) {
        return new RecoveryOptions(dryRun, RecoveryOptions.DamagePolicy.REFUSE, new IndexPolicy(256), true, 1, false);
    }

    @Test
    void anEpochEntryNoSegmentNameBacksFencesNothing() {
        Path dir = LogFixture.partition(data, "t", 0, 2, 10);
        // epoch 2 "began" at offset 0, but no segment of epoch 2 starts there: a damaged file, not a takeover
        StateJson.write(
                dir.resolve(LeaderEpochCheckpoint.FILE_NAME),
                new LeaderEpochCheckpoint(
                        LeaderEpochCheckpoint.VERSION,
                        List.of(new LeaderEpochCheckpoint.Entry(1, 0), new LeaderEpochCheckpoint.Entry(2, 0))));

        RecoveryReport r = RecoveryScan.run(dir, open(false));

        assertThat(r.refused()).as(r.toString()).isFalse();
        assertThat(r.segmentsRemoved()).isZero();
        assertThat(Files.exists(dir.resolve(SegmentName.of(1, 0).logFileName())))
                .isTrue();
        assertThat(StateJson.read(dir.resolve(LeaderEpochCheckpoint.FILE_NAME), LeaderEpochCheckpoint.class)
                        .orElseThrow()
                        .epochs())
                .containsExactly(new LeaderEpochCheckpoint.Entry(1, 0));
    }

    @Test
    void aCheckpointThatCannotDescribeTheActiveSegmentIsIgnored() throws Exception {
        Path dir = LogFixture.partition(data, "t", 0, 2, 10);
        Path active = dir.resolve(SegmentName.of(1, 50).logFileName());
        long size = Files.size(active);
        // at EOF, but one offset past the log end, which the last batch (continuing the one before it) contradicts
        StateJson.write(dir.resolve(RecoveryCheckpoint.FILE_NAME), new RecoveryCheckpoint(50, size, 101));

        RecoveryReport r = RecoveryScan.run(dir, open(true));

        assertThat(r.refused()).as(r.toString()).isFalse();
        assertThat(r.highWatermarkAfter()).isEqualTo(100);
        assertThat(r.actions()).anyMatch(a -> a.contains(RecoveryCheckpoint.FILE_NAME) && a.contains("ignored"));
    }

    @Test
    void aDamagedTopicConfigRefusesWhateverThePolicyAndAMissingOneDoesNot() throws Exception {
        Path dir = LogFixture.partition(data, "t", 0, 1, 4);
        assertThat(RecoveryScan.run(dir, open(true)).refused()).isFalse();
        Path config = data.resolve("t").resolve(TopicConfig.FILE_NAME);
        Files.writeString(config, "{\"cleanupPolicy\":");

        for (RecoveryOptions.DamagePolicy policy : RecoveryOptions.DamagePolicy.values()) {
            RecoveryReport r =
                    RecoveryScan.run(dir, new RecoveryOptions(false, policy, new IndexPolicy(256), false, 1, true));
            assertThat(r.refused()).as(policy.toString()).isTrue();
            assertThat(r.damage()).singleElement().asString().startsWith(config + ":0: not a valid topic config");
        }
    }
}
