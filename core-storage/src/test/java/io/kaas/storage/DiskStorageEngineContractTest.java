package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.TopicConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskStorageEngineContractTest extends StorageEngineContract {
    @TempDir
    Path dir;

    @Override
    StorageEngine newEngine() {
        return new DiskStorageEngine(EngineConfig.defaults(dir));
    }

    @Test
    void topicsAndConfigsSurviveARestartAndAnInterruptedDeleteIsFinished() throws Exception {
        engine.createTopic("a", 2, TopicConfig.EMPTY.withKafkaConfig("segment.bytes", "4096"));
        engine.partition(new TopicPartition("a", 1))
                .append(TestBatches.batch(3, 1), Acks.ALL, -1)
                .get();
        var id = engine.topic("a").orElseThrow().topicId();
        engine.close();
        Files.createDirectories(dir.resolve(".b-123.deleting").resolve("0"));
        engine = newEngine();
        TopicInfo a = engine.topic("a").orElseThrow();
        assertThat(a.topicId()).isEqualTo(id);
        assertThat(a.partitions()).isEqualTo(2);
        assertThat(a.config().segmentBytes()).isEqualTo(4096L);
        assertThat(engine.partition(new TopicPartition("a", 1)).state().highWatermark())
                .isEqualTo(3);
        assertThat(dir.resolve(".b-123.deleting")).doesNotExist();
        assertThat(Files.readString(dir.resolve("a/.config.json"))).isEqualTo("{\"segmentBytes\":4096}");
    }
}
