package io.kaas.broker.feature;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.admin.FeatureUpdate.UpgradeType;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The finalized levels' file: a new directory's levels, durability, epochs, and a second broker on the same file. */
class FinalizedFeaturesTest {
    @TempDir
    Path dir;

    private static final Map<String, Short> TO_TV1 = Map.of("transaction.version", (short) 1);
    private static final Map<String, UpgradeType> SAFE = Map.of("transaction.version", UpgradeType.SAFE_DOWNGRADE);

    @Test
    void aNewDirectoryStartsAsASingleApacheNodeWithTheGivenTransactionVersion() {
        FinalizedFeatures f = new FinalizedFeatures(dir.resolve("features.json"), 0, (short) 1);
        assertThat(f.levels().epoch()).isZero();
        assertThat(f.levels().levels())
                .containsEntry("metadata.version", MetadataVersion.LATEST_PRODUCTION.featureLevel())
                .containsEntry("transaction.version", (short) 1)
                .containsEntry("group.version", (short) 1)
                .containsEntry("kraft.version", (short) 1)
                .doesNotContainValue((short) 0);
        // Once the file exists, the setting no longer decides.
        assertThat(new FinalizedFeatures(dir.resolve("features.json"), 0, (short) 2)
                        .levels()
                        .levels())
                .containsEntry("transaction.version", (short) 1);
    }

    @Test
    void aChangeIsANewEpochSeenByAnotherBrokerOnTheFileAndValidateOnlyWritesNothing() {
        Path file = dir.resolve("features.json");
        FinalizedFeatures a = new FinalizedFeatures(file, 0, (short) 2);
        FinalizedFeatures b = new FinalizedFeatures(file, 1, (short) 2);
        assertThat(a.update(TO_TV1, SAFE, true).isSuccess()).isTrue();
        assertThat(a.update(Map.of(), Map.of(), false).isSuccess()).isTrue();
        assertThat(b.levels().epoch()).isZero();
        assertThat(a.update(TO_TV1, SAFE, false).isSuccess()).isTrue();
        assertThat(b.levels().epoch()).isEqualTo(1);
        assertThat(b.levels().levels()).containsEntry("transaction.version", (short) 1);
        assertThat(new FinalizedFeatures(file, 0, (short) 2).levels())
                .isEqualTo(a.levels())
                .isEqualTo(b.levels());
    }
}
