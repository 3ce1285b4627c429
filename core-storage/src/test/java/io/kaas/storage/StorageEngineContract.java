package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The rules every {@link StorageEngine} keeps; run against the disk and the in-memory engine. */
abstract class StorageEngineContract {
    StorageEngine engine;

    abstract StorageEngine newEngine();

    @BeforeEach
    void start() {
        engine = newEngine();
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void topicsAreCreatedListedGrownReconfiguredAndDeleted() throws Exception {
        TopicInfo t = engine.createTopic("orders", 3, TopicConfig.EMPTY.withKafkaConfig("retention.ms", "1000"));
        assertThat(t.partitions()).isEqualTo(3);
        assertThat(engine.topics()).extracting(TopicInfo::name).containsExactly("orders");
        assertThatThrownBy(() -> engine.createTopic("orders", 1, TopicConfig.EMPTY))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.TOPIC_EXISTS));
        assertThat(engine.createPartitions("orders", 5).partitions()).isEqualTo(5);
        engine.partition(new TopicPartition("orders", 4))
                .append(TestBatches.batch(1, 1), Acks.ALL, -1)
                .get();
        assertThatThrownBy(() -> engine.createPartitions("orders", 2)).isInstanceOf(IllegalArgumentException.class);
        assertThat(engine.updateTopicConfig("orders", TopicConfig.EMPTY).config())
                .isEqualTo(TopicConfig.EMPTY);
        UUID id = engine.topic("orders").orElseThrow().topicId();
        engine.deleteTopic("orders");
        assertThat(engine.topic("orders")).isEmpty();
        assertThatThrownBy(() -> engine.partition(new TopicPartition("orders", 0)))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.UNKNOWN_TOPIC_OR_PARTITION));
        // A re-created topic is a new incarnation, with no old data.
        TopicInfo again = engine.createTopic("orders", 1, TopicConfig.EMPTY);
        assertThat(again.topicId()).isNotEqualTo(id);
        assertThat(engine.partition(new TopicPartition("orders", 0)).state().highWatermark())
                .isZero();
    }

    @Test
    void severalTopicsAreCreatedAtOnceEachWithItsOwnOutcome() throws Exception {
        engine.createTopic("taken", 1, TopicConfig.EMPTY);
        List<TopicToCreate> wanted = new ArrayList<>();
        for (int t = 0; t < 40; t++) {
            wanted.add(new TopicToCreate("batch-" + t, 3, TopicConfig.EMPTY));
        }
        wanted.add(new TopicToCreate("taken", 2, TopicConfig.EMPTY));
        wanted.add(new TopicToCreate("a/b", 1, TopicConfig.EMPTY));
        List<CompletableFuture<TopicInfo>> created = engine.createTopics(wanted);
        assertThat(created).hasSize(wanted.size());
        for (int t = 0; t < 40; t++) {
            assertThat(created.get(t).get(30, TimeUnit.SECONDS).name()).isEqualTo("batch-" + t);
            engine.partition(new TopicPartition("batch-" + t, 2))
                    .append(TestBatches.batch(1, 1), Acks.ALL, -1)
                    .get(30, TimeUnit.SECONDS);
        }
        List<Throwable> failures = new ArrayList<>();
        for (int i = 40; i < wanted.size(); i++) {
            CompletableFuture<TopicInfo> f = created.get(i);
            assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
            f.exceptionally(e -> {
                failures.add(e instanceof CompletionException ? e.getCause() : e);
                return null;
            });
        }
        assertThat(failures.get(0))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.TOPIC_EXISTS));
        assertThat(failures.get(1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(engine.topic("taken").orElseThrow().partitions()).isEqualTo(1);
        assertThat(engine.topics()).hasSize(41);
    }

    @Test
    void illegalNamesAndCountsAreRefused() {
        assertThatThrownBy(() -> engine.createTopic("a/b", 1, TopicConfig.EMPTY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.createTopic(".hidden", 1, TopicConfig.EMPTY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.createTopic("__cluster", 1, TopicConfig.EMPTY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.createTopic("ok", 0, TopicConfig.EMPTY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.partition(new TopicPartition("nope", 0)))
                .isInstanceOf(StorageException.class);
    }

    @Test
    void appendsAndReadsPerPartition() throws Exception {
        engine.createTopic("t", 2, TopicConfig.EMPTY);
        PartitionLog p0 = engine.partition(new TopicPartition("t", 0));
        PartitionLog p1 = engine.partition(new TopicPartition("t", 1));
        p0.append(TestBatches.batch(4, 1), Acks.ALL, -1).get();
        assertThat(p1.append(TestBatches.batch(2, 1), Acks.LEADER, -1).get().baseOffset())
                .isZero();
        assertThat(p0.state().highWatermark()).isEqualTo(4);
        assertThat(p1.state().highWatermark()).isEqualTo(2);
        assertThat(p0.read(0, 100, Long.MAX_VALUE).records().getLong(0)).isZero();
        assertThat(p0.deleteRecords(2)).isEqualTo(2);
        assertThat(p0.state().logStartOffset()).isEqualTo(2);
    }

    @Test
    void acksNoneStillWrites() throws Exception {
        engine.createTopic("t", 1, TopicConfig.EMPTY);
        PartitionLog p = engine.partition(new TopicPartition("t", 0));
        p.append(TestBatches.batch(1, 1), Acks.NONE, -1).get();
        assertThat(p.state().highWatermark()).isEqualTo(1);
    }
}
