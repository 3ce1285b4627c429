package io.kaas.broker.group.streams;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The two deadlines a streams group keeps per member (KIP-1071, as for the consumer protocol): the session (no
 * heartbeat within {@code streams.session.timeout.ms} fences the member) and the revocation (a member that still owns
 * tasks taken from it must give them up within its rebalance timeout). Each deadline's action re-enters the group
 * through its monitor; this object is used only under that monitor, so it needs no lock of its own.
 */
final class StreamsMemberDeadlines {
    private final ScheduledExecutorService timer;
    private final Map<String, ScheduledFuture<?>> sessions = new HashMap<>();
    private final Map<String, ScheduledFuture<?>> revocations = new HashMap<>();

    StreamsMemberDeadlines(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** A heartbeat arrived: the member's session starts again. */
    void resetSession(String memberId, long timeoutMs, Runnable expired) {
        cancel(sessions.remove(memberId));
        sessions.put(memberId, timer.schedule(expired, timeoutMs, TimeUnit.MILLISECONDS));
    }

    /** The member has tasks to revoke: its deadline starts now, unless one is already running. */
    void startRevocation(String memberId, long timeoutMs, Runnable timedOut) {
        if (!revocations.containsKey(memberId)) {
            revocations.put(memberId, timer.schedule(timedOut, timeoutMs, TimeUnit.MILLISECONDS));
        }
    }

    /** The member revoked what it had to. */
    void cancelRevocation(String memberId) {
        cancel(revocations.remove(memberId));
    }

    /** The revocation deadline ran (its action is running now). */
    void revocationFired(String memberId) {
        revocations.remove(memberId);
    }

    /** The member left or was fenced. */
    void cancel(String memberId) {
        cancel(sessions.remove(memberId));
        cancel(revocations.remove(memberId));
    }

    /** The group is gone. */
    void cancelAll() {
        sessions.values().forEach(StreamsMemberDeadlines::cancel);
        revocations.values().forEach(StreamsMemberDeadlines::cancel);
        sessions.clear();
        revocations.clear();
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }
}
