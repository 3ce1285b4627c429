package io.kaas.cluster.kubernetes;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * When a Kubernetes Lease has expired, as one observer can tell without trusting anyone's wall clock: a Lease
 * whose resourceVersion this observer has seen unchanged for its whole {@code leaseDurationSeconds} (on this
 * process's monotonic clock) was not renewed in that time. It is what client-go's leader election does
 * (observedTime), and what makes the self-fence hold: the holder stops acknowledging at the latest
 * {@code ttl − margin} after sending the renewal that produced the version, and the observer saw that
 * version only after it was written, so it calls the Lease expired no earlier than {@code ttl} after that send.
 *
 * <p>A Lease first seen is presumed alive for a whole duration from then: a new observer (a broker starting,
 * {@code kaas assign}) waits one TTL before calling a silent holder gone. Thread-safe.
 */
final class LeaseObservations {
    private record Seen(String resourceVersion, long sinceNanos) {}

    private final LongSupplier nanoClock;
    private final Map<String, Seen> seen = new HashMap<>();

    LeaseObservations(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Records that Lease {@code name} is at {@code resourceVersion}; true when it has not changed for {@code durationSeconds}. */
    synchronized boolean expired(String name, String resourceVersion, int durationSeconds) {
        long now = nanoClock.getAsLong();
        Seen s = seen.get(name);
        if (s == null || !s.resourceVersion().equals(resourceVersion)) {
            seen.put(name, new Seen(resourceVersion, now));
            return false;
        }
        return now - s.sinceNanos() >= durationSeconds * 1_000_000_000L;
    }

    /** Forgets Leases no longer listed. */
    synchronized void retain(Set<String> names) {
        seen.keySet().retainAll(names);
    }
}
