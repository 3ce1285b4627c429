package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Topic configs over a directory two engines share, as two brokers over one volume ({@link SharedTopicConfigs}). */
class SharedTopicConfigsTest {
    @TempDir
    Path dir;

    private DiskStorageEngine engine() {
        return DiskStorageEngine.shared(EngineConfig.defaults(dir), EngineObserver.NONE);
    }

    private static Map<String, String> configs(StorageEngine e) {
        return e.topic("t").orElseThrow().config().toKafkaConfigs();
    }

    @Test
    void changesMadeThroughEitherEngineAreKeptAndSeenByTheOther() {
        try (DiskStorageEngine a = engine();
                DiskStorageEngine b = engine()) {
            a.createTopic("t", 1, TopicConfig.EMPTY);
            b.refreshTopics();
            a.alterTopicConfig("t", c -> c.withKafkaConfig("retention.ms", "60000"));
            // b has not refreshed: its copy lacks retention.ms, but its change is made to the file as it is now.
            b.alterTopicConfig("t", c -> c.withKafkaConfig("retention.bytes", "2048"));
            assertThat(configs(b)).containsEntry("retention.ms", "60000").containsEntry("retention.bytes", "2048");
            assertThat(StateJson.read(dir.resolve("t").resolve(TopicConfig.FILE_NAME), TopicConfig.class)
                            .orElseThrow()
                            .toKafkaConfigs())
                    .containsEntry("retention.ms", "60000")
                    .containsEntry("retention.bytes", "2048");

            assertThat(configs(a)).doesNotContainKey("retention.bytes");
            a.refreshTopics();
            assertThat(configs(a)).as("in force on a after its refresh").containsEntry("retention.bytes", "2048");
        }
    }

    @Test
    void anInvalidChangeWritesNothing() {
        try (DiskStorageEngine a = engine()) {
            a.createTopic("t", 1, TopicConfig.EMPTY.withKafkaConfig("retention.ms", "1000"));
            assertThatThrownBy(() -> a.alterTopicConfig("t", c -> {
                        throw new IllegalArgumentException("retention.ms must be a number");
                    }))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(configs(a)).containsEntry("retention.ms", "1000");
            try (DiskStorageEngine b = engine()) {
                assertThat(configs(b)).containsEntry("retention.ms", "1000");
            }
        }
    }
}
