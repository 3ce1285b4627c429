package io.kaas.broker;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link KaasBroker#start} has started so far, each with how to stop it. Stopped in reverse (the last started
 * first), on a failed start as at {@link KaasBroker#stop}: a listener closes before the handler threads it feeds,
 * the handler threads before the engine they write to, the engine before the membership it writes under. Every
 * one is stopped even when an earlier one fails to stop; the first failure is the one thrown, the later ones
 * suppressed in it, so a broker whose start fails half-way leaves no thread running and no port bound.
 *
 * <p>Not thread-safe: the broker's monitor guards it.
 */
final class StartedResources {
    private static final Logger LOG = LoggerFactory.getLogger(StartedResources.class);

    /** How to stop one started thing. */
    @FunctionalInterface
    interface Stop {
        void stop() throws Exception;
    }

    private record Started(String what, Stop how) {}

    private final Deque<Started> started = new ArrayDeque<>();

    /** Records that {@code what} was started (or handed in to be stopped here), and how to stop it. */
    void add(String what, Stop stop) {
        started.push(new Started(what, stop));
    }

    /**
     * For a start that failed with {@code failure}: stops everything started so far, in reverse, and returns
     * {@code failure} (to be rethrown) with every failure to stop suppressed in it.
     */
    <T extends Throwable> T stopAllAfter(T failure) {
        stopEach().forEach(failure::addSuppressed);
        return failure;
    }

    /**
     * Stops everything, in reverse. Throws the first failure to stop (a checked one wrapped in an
     * {@link IllegalStateException} naming what would not stop), the later ones suppressed in it.
     */
    void stopAll() {
        List<Throwable> failures = stopEach();
        if (failures.isEmpty()) {
            return;
        }
        Throwable first = failures.get(0);
        failures.subList(1, failures.size()).forEach(first::addSuppressed);
        if (first instanceof Error e) {
            throw e;
        }
        throw (RuntimeException) first;
    }

    /** Stops every entry, in reverse; what failed to stop, in that order (checked failures wrapped, naming what). */
    private List<Throwable> stopEach() {
        List<Throwable> failures = new ArrayList<>();
        while (!started.isEmpty()) {
            Started s = started.pop();
            try {
                s.how().stop();
            } catch (InterruptedException e) {
                // Go on stopping the rest: whoever interrupted us wants the broker down, not half of it.
                Thread.currentThread().interrupt();
                LOG.warn("interrupted while stopping {}", s.what());
            } catch (RuntimeException | Error e) {
                failures.add(e);
            } catch (Exception e) {
                failures.add(new IllegalStateException("cannot stop " + s.what() + ": " + e, e));
            }
        }
        return failures;
    }
}
