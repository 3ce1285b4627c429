package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StorageEngine#fsyncingAfterTasks}: the last fsync a task asks for runs on its thread, after it; the rest on committers. */
class FsyncOnTaskThreadTest {
    @TempDir
    Path dir;

    @Test
    void theLastFsyncOfATaskRunsOnItsThreadAfterItTheOthersOnCommitters() throws Exception {
        Map<Integer, String> fsyncedOn = new ConcurrentHashMap<>();
        EngineObserver observer = new EngineObserver() {
            @Override
            public void fsynced(TopicPartition partition, long durationNanos, long appendsCovered) {
                fsyncedOn.putIfAbsent(
                        partition.partition(), Thread.currentThread().getName());
            }
        };
        ExecutorService handlers = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-handler"));
        try (DiskStorageEngine engine = new DiskStorageEngine(EngineConfig.defaults(dir), observer)) {
            engine.createTopic("t", 3, TopicConfig.EMPTY);
            List<CompletableFuture<AppendResult>> acks = new ArrayList<>();
            CompletableFuture<Boolean> ackedBeforeTaskEnded = new CompletableFuture<>();
            engine.fsyncingAfterTasks(handlers).execute(() -> {
                for (int p = 0; p < 3; p++) {
                    acks.add(
                            engine.partition(new TopicPartition("t", p)).append(TestBatches.batch(1, 1), Acks.ALL, -1));
                }
                // The last partition's fsync waits for this task to return: not acknowledged yet.
                ackedBeforeTaskEnded.complete(acks.get(2).isDone());
            });
            assertThat(ackedBeforeTaskEnded.get(5, TimeUnit.SECONDS)).isFalse();
            for (CompletableFuture<AppendResult> a : acks) {
                a.get(5, TimeUnit.SECONDS);
            }
            assertThat(fsyncedOn.get(2)).isEqualTo("test-handler");
            assertThat(fsyncedOn.get(0)).startsWith("kaas-committer-");
            assertThat(fsyncedOn.get(1)).startsWith("kaas-committer-");
            // Outside such a task, appends fsync on committers as before. The task's own drain must have
            // ended first: a drain still looping takes an append that arrives meanwhile (group commit), and
            // would fsync it on the handler. The single handler thread runs the next task only after it.
            CompletableFuture.runAsync(() -> {}, handlers).get(5, TimeUnit.SECONDS);
            fsyncedOn.clear();
            engine.partition(new TopicPartition("t", 2))
                    .append(TestBatches.batch(1, 1), Acks.ALL, -1)
                    .get(5, TimeUnit.SECONDS);
            assertThat(fsyncedOn.get(2)).startsWith("kaas-committer-");
        } finally {
            handlers.shutdownNow();
        }
    }
}
