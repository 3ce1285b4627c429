package io.kaas.storage.testfs;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many times {@code force()} was called, per path the channel was opened with (files and
 * directories), counted on entry: failed and hung calls count too. Thread-safe.
 */
public final class ForceCounts {
    private final Map<Path, LongAdder> counts = new ConcurrentHashMap<>();

    void record(Path path) {
        counts.computeIfAbsent(Scope.plain(path), p -> new LongAdder()).increment();
    }

    /** Calls on exactly this file or directory. */
    public long of(Path path) {
        LongAdder count = counts.get(Scope.plain(path));
        return count == null ? 0 : count.sum();
    }

    /** Calls on every path the scope includes. */
    public long of(Scope scope) {
        return counts.entrySet().stream()
                .filter(e -> scope.includes(e.getKey()))
                .mapToLong(e -> e.getValue().sum())
                .sum();
    }

    public long total() {
        return of(Scope.everything());
    }

    public void reset() {
        counts.clear();
    }
}
