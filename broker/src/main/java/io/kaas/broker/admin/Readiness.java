package io.kaas.broker.admin;

import io.kaas.storage.PartitionLog;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.io.StorageException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * What {@code /readyz} answers: ready once the listeners are bound, the engine's start-up load has
 * recovered every partition present at start ({@link StorageEngine#ready}), none was refused, and no
 * open partition is stalled or failed. Read from volatile state only
 * ({@link PartitionLog#failure()}), so a hung fsync makes the broker not ready, never the probe slow.
 *
 * <p>An offline log dir ({@link StorageEngine#offlineLogDirs}) is named, but leaves the broker ready: as
 * Apache's, it serves its other dirs on, and a restart (which a probe that failed would bring) cannot mend a
 * disk; the operator repairs it, then restarts. Its partitions, refused, are not reasons either.
 */
public final class Readiness {
    /** Ready, or the reasons not. */
    public record Status(boolean ready, List<String> reasons, List<String> offlineLogDirs) {}

    private final BooleanSupplier listenersBound;
    private final StorageEngine engine;

    public Readiness(BooleanSupplier listenersBound, StorageEngine engine) {
        this.listenersBound = listenersBound;
        this.engine = engine;
    }

    public Status check() {
        List<String> reasons = new ArrayList<>();
        if (!listenersBound.getAsBoolean()) {
            reasons.add("the Kafka listeners are not bound (starting or stopping)");
        }
        if (!engine.ready()) {
            StorageEngine.LoadProgress p = engine.loadProgress();
            reasons.add("recovering partitions: " + (p.loaded() + p.refused()) + " of " + p.total() + " done");
        }
        List<String> offline = new ArrayList<>();
        engine.offlineLogDirs().forEach((d, why) -> offline.add(d.name() + " (" + d.path() + "): " + why));
        engine.refusedPartitions().forEach((tp, why) -> {
            if (!engine.inOfflineLogDir(tp)) {
                reasons.add(tp.topic() + "-" + tp.partition() + ": cannot be opened: " + why);
            }
        });
        for (PartitionLog p : engine.openPartitions()) {
            Optional<StorageException> f = p.failure();
            f.ifPresent(e -> reasons.add(p.id().topic() + "-" + p.id().partition() + ": "
                    + (e.kind() == StorageException.Kind.STALLED ? "stalled" : "failed") + ": " + e.getMessage()));
        }
        return new Status(reasons.isEmpty(), List.copyOf(reasons), List.copyOf(offline));
    }
}
