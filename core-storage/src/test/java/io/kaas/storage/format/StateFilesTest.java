package io.kaas.storage.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every state file round-trips byte for byte against fixtures written by hand from docs/on-disk-format.md. */
class StateFilesTest {
    @TempDir
    Path dir;

    static byte[] fixture(String name) throws IOException {
        try (InputStream in = StateFilesTest.class.getResourceAsStream("/fixtures/" + name)) {
            return in.readAllBytes();
        }
    }

    @ParameterizedTest
    @CsvSource({
        "manifest.json, io.kaas.storage.format.Manifest",
        "recovery-checkpoint.json, io.kaas.storage.format.RecoveryCheckpoint",
        "producer-state.snapshot, io.kaas.storage.format.ProducerStateSnapshot",
        "txn-index.snapshot, io.kaas.storage.format.TxnIndexSnapshot",
        "config.json, io.kaas.storage.format.TopicConfig",
        "config-full.json, io.kaas.storage.format.TopicConfig",
        "topic-id.json, io.kaas.storage.format.TopicIdentity"
    })
    void roundTripsByteForByte(String fixture, Class<?> type) throws Exception {
        byte[] original = fixture(fixture);
        Object decoded = StateJson.fromBytes(original, type);
        assertThat(new String(StateJson.toBytes(decoded), StandardCharsets.UTF_8))
                .isEqualTo(new String(original, StandardCharsets.UTF_8));
    }

    @Test
    void decodesTheValuesDesignMdNames() throws Exception {
        assertThat(StateJson.fromBytes(fixture("manifest.json"), Manifest.class))
                .isEqualTo(new Manifest(5, 1000, 0));
        assertThat(StateJson.fromBytes(fixture("producer-state.snapshot"), ProducerStateSnapshot.class)
                        .entries()
                        .get(0)
                        .recent())
                .containsExactly(new ProducerStateSnapshot.Batch(0, 4, 10), new ProducerStateSnapshot.Batch(5, 5, 15));
        assertThat(StateJson.fromBytes(fixture("topic-id.json"), TopicIdentity.class)
                        .topicId())
                .isEqualTo(UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8"));
        TopicConfig c = StateJson.fromBytes(fixture("config.json"), TopicConfig.class);
        assertThat(c.retentionBytes()).isNull();
        assertThat(c.toKafkaConfigs())
                .containsEntry("retention.ms", "604800000")
                .containsEntry("flush.messages", "1")
                .doesNotContainKey("retention.bytes");
    }

    @Test
    void unsetConfigIsAnEmptyObjectAndUnknownKeysAreIgnored() throws Exception {
        assertThat(new String(StateJson.toBytes(TopicConfig.EMPTY), StandardCharsets.UTF_8))
                .isEqualTo("{}");
        assertThat(StateJson.fromBytes(
                        "{\"epoch\":1,\"highWatermark\":2,\"logStartOffset\":0,\"future\":true}"
                                .getBytes(StandardCharsets.UTF_8),
                        Manifest.class))
                .isEqualTo(new Manifest(1, 2, 0));
    }

    @Test
    void atomicWriteLeavesNoTemporaryFileAndReadsBack() {
        Path f = dir.resolve(Manifest.FILE_NAME);
        StateJson.write(f, new Manifest(1, 10, 2));
        StateJson.write(f, new Manifest(1, 20, 3));
        assertThat(StateJson.read(f, Manifest.class)).contains(new Manifest(1, 20, 3));
        assertThat(dir.resolve(Manifest.FILE_NAME + ".tmp")).doesNotExist();
    }

    @Test
    void aMissingFileIsEmptyAndAGarbledOneNamesTheFile() throws Exception {
        assertThat(StateJson.read(dir.resolve("nope.json"), Manifest.class)).isEmpty();
        Path bad = dir.resolve(Manifest.FILE_NAME);
        Files.writeString(bad, "{\"epoch\":");
        assertThatThrownBy(() -> StateJson.read(bad, Manifest.class))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(bad.toString());
    }

    @Test
    void kafkaConfigNamesMapBothWays() {
        TopicConfig c =
                TopicConfig.EMPTY.withKafkaConfig("retention.ms", "1000").withKafkaConfig("cleanup.policy", "compact");
        assertThat(c.retentionMs()).isEqualTo(1000L);
        assertThat(c.toKafkaConfigs()).containsOnlyKeys("retention.ms", "cleanup.policy");
        assertThat(c.withKafkaConfig("retention.ms", null).retentionMs()).isNull();
        assertThatThrownBy(() -> c.withKafkaConfig("segment.bytes", "lots"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.withKafkaConfig("no.such", "1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(List.copyOf(TopicConfig.KAFKA_NAMES.keySet())).hasSize(8);
    }

    @Test
    void configsTheEngineDoesNotEnforceAreStoredBesideTheTypedOnes() throws Exception {
        TopicConfig c = TopicConfig.EMPTY
                .withAnyKafkaConfig("retention.ms", "1000")
                .withAnyKafkaConfig("min.cleanable.dirty.ratio", "0.01")
                .withAnyKafkaConfig("message.timestamp.type", "CreateTime");
        assertThat(c.retentionMs()).isEqualTo(1000L);
        assertThat(c.otherConfigs()).containsOnlyKeys("min.cleanable.dirty.ratio", "message.timestamp.type");
        assertThat(c.toKafkaConfigs())
                .containsEntry("min.cleanable.dirty.ratio", "0.01")
                .containsEntry("retention.ms", "1000");
        String json = new String(StateJson.toBytes(c), StandardCharsets.UTF_8);
        assertThat(json)
                .isEqualTo("{\"retentionMs\":1000,\"otherConfigs\":{\"message.timestamp.type\":\"CreateTime\","
                        + "\"min.cleanable.dirty.ratio\":\"0.01\"}}");
        assertThat(StateJson.fromBytes(json.getBytes(StandardCharsets.UTF_8), TopicConfig.class))
                .isEqualTo(c);
        assertThat(c.withAnyKafkaConfig("min.cleanable.dirty.ratio", null).otherConfigs())
                .containsOnlyKeys("message.timestamp.type");
        // A file from before otherConfigs existed loads unchanged, with no other configs.
        assertThat(StateJson.fromBytes(fixture("config.json"), TopicConfig.class)
                        .otherConfigs())
                .isEmpty();
    }

    @Test
    void aProducerSnapshotKeepsTheCoordinatorEpochAndOneWrittenBeforeItReadsAsNone() throws IOException {
        ProducerStateSnapshot old = StateJson.fromBytes(
                "{\"version\":1,\"entries\":[{\"producer_id\":7,\"epoch\":0,\"recent\":[]}]}"
                        .getBytes(StandardCharsets.UTF_8),
                ProducerStateSnapshot.class);
        assertThat(old.entries().get(0).coordinatorEpoch()).isEqualTo(ProducerStateSnapshot.Entry.NO_COORDINATOR_EPOCH);
        ProducerStateSnapshot now =
                new ProducerStateSnapshot(1, List.of(new ProducerStateSnapshot.Entry(7, (short) 0, List.of(), 5)));
        assertThat(new String(StateJson.toBytes(now), StandardCharsets.UTF_8)).contains("\"coordinator_epoch\":5");
        assertThat(StateJson.fromBytes(StateJson.toBytes(now), ProducerStateSnapshot.class))
                .isEqualTo(now);
    }
}
