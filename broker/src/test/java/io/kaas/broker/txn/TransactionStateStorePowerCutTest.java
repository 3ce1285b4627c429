package io.kaas.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.group.OffsetStore;
import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.layout.ClusterDir;
import io.kaas.storage.testfs.FaultyFileSystem;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;

/**
 * The state directories under {@code __cluster} are created durably, like the files in them: a slot
 * written, or a user added, into a brand-new data directory survives a power cut (the fault-injecting
 * filesystem keeps only what was fsynced, directory entries included). Before, {@code txn_state/} and
 * the credentials' {@code __cluster/} came from a plain {@code Files.createDirectories}, and a cut
 * could take the directory, and every fsynced file in it, back.
 */
class TransactionStateStorePowerCutTest {
    @Test
    void aSlotWrittenIntoANewDataDirSurvivesACut() throws Exception {
        FaultyFileSystem fs = FaultyFileSystem.onJimfs();
        Path cluster = ClusterDir.of(fs.root().resolve("data"));
        TransactionStateStore store = new TransactionStateStore(cluster);
        TransactionRecord t = TransactionRecord.fresh("app-1", 7, 60_000, 1_000);
        store.write(TransactionStateStore.slotFor("app-1"), List.of(t));
        FaultyFileSystem after = fs.powerCut();
        assertThat(new TransactionStateStore(after.pathOf(cluster)).loadAll()).containsExactly(t);
        after.close();
    }

    /**
     * A TxnOffsetCommit's pending offsets are in the group's file before the answer, so a cut (or a kill -9) after it
     * leaves them for the coordinator that loads the group next; the COMMIT marker's move into the committed offsets
     * is one atomic write: after a cut they are either still pending or committed, never both nor neither.
     */
    @Test
    void pendingTransactionalOffsetsAndTheirCommitSurviveACut() throws Exception {
        FaultyFileSystem fs = FaultyFileSystem.onJimfs();
        Path cluster = ClusterDir.of(fs.root().resolve("data"));
        GroupOffsetsFile.Committed c = new GroupOffsetsFile.Committed("t", 0, 42, -1, "m", 1_000);
        new OffsetStore(cluster).stagePending("g", 7, (short) 0, List.of(c));
        FaultyFileSystem afterStage = fs.powerCut();
        OffsetStore reloaded = new OffsetStore(afterStage.pathOf(cluster));
        assertThat(reloaded.hasPending("g", "t", 0)).isTrue();
        assertThat(reloaded.pendingProducers("g")).containsExactly(7L);
        assertThat(reloaded.offsets("g")).isEmpty();

        assertThat(reloaded.completePending("g", 7, true)).isTrue();
        FaultyFileSystem afterCommit = afterStage.powerCut();
        OffsetStore committed = new OffsetStore(afterCommit.pathOf(cluster));
        assertThat(committed.hasPending("g", "t", 0)).isFalse();
        assertThat(committed.offsets("g")).containsEntry(new OffsetStore.PartitionKey("t", 0), c);
        assertThat(committed.completePending("g", 7, true))
                .as("a retried marker finds nothing pending")
                .isFalse();
        afterCommit.close();
    }

    @Test
    void aUserAddedToANewDataDirSurvivesACut() throws Exception {
        FaultyFileSystem fs = FaultyFileSystem.onJimfs();
        Path data = fs.root().resolve("data");
        ScramCredentialStore.inDataDir(data)
                .upsert(
                        "admin",
                        ScramMechanism.SCRAM_SHA_256,
                        ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_256, "secret", 4096));
        FaultyFileSystem after = fs.powerCut();
        assertThat(ScramCredentialStore.inDataDir(after.pathOf(data)).describe())
                .containsKey("admin");
        after.close();
    }
}
