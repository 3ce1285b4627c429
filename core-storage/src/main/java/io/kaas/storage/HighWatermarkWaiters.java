package io.kaas.storage;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;

/**
 * Fetch long-polls parked on one partition until its high watermark passes their offset, or it closes.
 * Lock-free: parking and waking race, so a waiter re-checks after it is added.
 */
final class HighWatermarkWaiters {
    private record Waiter(long offset, CompletableFuture<Void> future) {}

    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    private final LongSupplier highWatermark;
    private volatile boolean closed;

    HighWatermarkWaiters(LongSupplier highWatermark) {
        this.highWatermark = highWatermark;
    }

    CompletableFuture<Void> awaitAbove(long offset) {
        if (highWatermark.getAsLong() > offset || closed) {
            return CompletableFuture.completedFuture(null);
        }
        Waiter w = new Waiter(offset, new CompletableFuture<>());
        // A long-poll that times out cancels its future: drop it, or idle partitions collect waiters.
        w.future.whenComplete((v, t) -> waiters.remove(w));
        waiters.add(w);
        // An append may have published, or the partition closed, between the check and the add.
        if ((highWatermark.getAsLong() > offset || closed) && waiters.remove(w)) {
            w.future.complete(null);
        }
        return w.future;
    }

    /** Completes the waiters the published high watermark has passed. */
    void wake() {
        long hwm = highWatermark.getAsLong();
        for (Waiter w : waiters) {
            if (hwm > w.offset && waiters.remove(w)) {
                w.future.complete(null);
            }
        }
    }

    /** Completes every waiter, now and later: the partition is closed. */
    void close() {
        closed = true;
        waiters.forEach(w -> w.future.complete(null));
        waiters.clear();
    }

    int size() {
        return waiters.size();
    }
}
