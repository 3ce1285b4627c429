package io.kaas.storage.testfs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Holds every matching {@code force()} until the test calls {@link #release()}: a disk whose fsync
 * hangs, so a watchdog can be tested. Threads block before the real fsync, so nothing they were
 * syncing becomes durable until release. A power cut fails every blocked call. Thread-safe.
 */
public final class FsyncGate {
    private final Object lock = new Object();
    private boolean released; // guarded by lock
    private String failure; // guarded by lock; set by a power cut
    private int blocked; // guarded by lock: threads waiting right now
    private int everBlocked; // guarded by lock

    /** Lets every blocked and future fsync through. */
    public void release() {
        synchronized (lock) {
            released = true;
            lock.notifyAll();
        }
    }

    /** Threads waiting in {@code force()} right now. */
    public int blockedCount() {
        synchronized (lock) {
            return blocked;
        }
    }

    /** Calls that have waited at this gate since it was armed, including released ones. */
    public int totalBlocked() {
        synchronized (lock) {
            return everBlocked;
        }
    }

    /** Waits until at least {@code threads} calls are blocked here, so a test need not sleep. */
    public void awaitBlocked(int threads, Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (blocked < threads) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException(blocked + " fsync(s) blocked at the gate, expected " + threads);
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    void pass(Path path) throws IOException {
        synchronized (lock) {
            blocked++;
            everBlocked++;
            lock.notifyAll();
            try {
                while (!released && failure == null) {
                    lock.wait();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while fsync of " + path + " hung (injected)");
            } finally {
                blocked--;
            }
            if (failure != null && !released) {
                throw new IOException("fsync of " + path + " abandoned: " + failure);
            }
        }
    }

    void fail(String reason) {
        synchronized (lock) {
            failure = reason;
            lock.notifyAll();
        }
    }
}
