package io.kaas.storage.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@link SharedStateFile}s on one path stand for two processes sharing a data directory (each has its own
 * copy and lock object; only the file and its OS lock are shared): each sees the other's writes, concurrent
 * updates lose nothing, and a refused change writes nothing.
 */
class SharedStateFileTest {
    record Counters(int version, Map<String, Integer> counts) {
        Counters {
            counts = counts == null ? new TreeMap<>() : new TreeMap<>(counts);
        }

        Counters plus(String key) {
            Map<String, Integer> next = new TreeMap<>(counts);
            next.merge(key, 1, Integer::sum);
            return new Counters(1, next);
        }
    }

    private static final Counters NONE = new Counters(1, Map.of());

    @TempDir
    Path dir;

    @Test
    void eachWriterSeesTheOthersChangesAndSameContentIsTheSameInstance() {
        Path file = dir.resolve("__cluster").resolve("counters.json");
        SharedStateFile<Counters> a = SharedStateFile.of(file, Counters.class, NONE);
        SharedStateFile<Counters> b = SharedStateFile.of(file, Counters.class, NONE);
        assertThat(a.current()).isSameAs(NONE);
        assertThat(Files.exists(file)).isFalse();

        a.update(c -> c.plus("x"));
        assertThat(b.current().counts()).containsEntry("x", 1);
        Counters seen = b.current();
        assertThat(b.current()).as("unchanged file: same instance").isSameAs(seen);

        b.update(c -> c.plus("x"));
        assertThat(a.current().counts()).containsEntry("x", 2);
        assertThat(a.recent().counts()).containsEntry("x", 2);
    }

    @Test
    void concurrentUpdatesFromTwoWritersLoseNothing() throws Exception {
        Path file = dir.resolve("counters.json");
        SharedStateFile<Counters> a = SharedStateFile.of(file, Counters.class, NONE);
        SharedStateFile<Counters> b = SharedStateFile.of(file, Counters.class, NONE);
        ExecutorService two = Executors.newFixedThreadPool(2, r -> new Thread(r, "shared-state-file-test"));
        try {
            List<Future<?>> done = new ArrayList<>();
            for (SharedStateFile<Counters> w : List.of(a, b)) {
                done.add(two.submit(() -> {
                    for (int i = 0; i < 50; i++) {
                        w.update(c -> c.plus("n"));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            two.shutdownNow();
        }
        assertThat(SharedStateFile.of(file, Counters.class, NONE).current().counts())
                .containsEntry("n", 100);
    }

    @Test
    void aRefusedOrEmptyChangeWritesNothing() throws Exception {
        Path file = dir.resolve("counters.json");
        SharedStateFile<Counters> a = SharedStateFile.of(file, Counters.class, NONE);
        a.update(c -> c.plus("x"));
        long written = Files.getLastModifiedTime(file).toMillis();
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> a.update(c -> {
                    throw new IllegalArgumentException("refused");
                }))
                .hasMessage("refused");
        assertThat(a.update(c -> c)).isEqualTo(new Counters(1, Map.of("x", 1)));
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
        assertThat(Files.getLastModifiedTime(file).toMillis()).isEqualTo(written);
    }
}
