package io.kaas.protocol;

import java.util.concurrent.TimeUnit;

/**
 * Counts requests between decode and response-written over all connections, so a clean shutdown can
 * wait for them after it stopped reading new ones. Thread-safe (monitor).
 */
public final class InFlightRequests {
    private int count;

    public synchronized void started() {
        count++;
    }

    public synchronized void finished() {
        count--;
        if (count == 0) {
            notifyAll();
        }
    }

    public synchronized int count() {
        return count;
    }

    /** @return true when none is in flight, false if the timeout passed first */
    public synchronized boolean awaitNone(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (count > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }
}
