package io.kaas.broker.group;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A classic group's deadlines: each member's session (it must heartbeat, join or sync within its session timeout, or
 * it is removed), and the rebalance's (members that have not rejoined by the longest rebalance timeout are removed).
 * Scheduled on the broker's {@code kaas-timer} (a test's fake scheduler); the callbacks re-enter the group through its
 * monitor and check that what they expire is still current. Called under the group's monitor.
 */
final class ClassicGroupTimers {
    /** Apache's defaults of {@code group.min.session.timeout.ms} and {@code group.max.session.timeout.ms}. */
    static final int MIN_SESSION_TIMEOUT_MS = 6_000, MAX_SESSION_TIMEOUT_MS = 1_800_000;

    private final ScheduledExecutorService timer;
    private final Consumer<Member> sessionExpired;
    private final Runnable rebalanceTimedOut;
    private ScheduledFuture<?> rebalanceDeadline;

    ClassicGroupTimers(ScheduledExecutorService timer, Consumer<Member> sessionExpired, Runnable rebalanceTimedOut) {
        this.timer = timer;
        this.sessionExpired = sessionExpired;
        this.rebalanceTimedOut = rebalanceTimedOut;
    }

    /** Whether a JoinGroup may ask for this session timeout (else INVALID_SESSION_TIMEOUT). */
    static boolean validSessionTimeout(int ms) {
        return ms >= MIN_SESSION_TIMEOUT_MS && ms <= MAX_SESSION_TIMEOUT_MS;
    }

    /** The member was heard from: its session starts again. */
    void resetSession(Member m) {
        cancelSession(m);
        m.sessionExpiry = timer.schedule(() -> sessionExpired.accept(m), m.sessionTimeoutMs, TimeUnit.MILLISECONDS);
    }

    /** No session deadline for the member (it waits in JoinGroup, bounded by the rebalance deadline; or it is gone). */
    static void cancelSession(Member m) {
        if (m.sessionExpiry != null) {
            m.sessionExpiry.cancel(false);
            m.sessionExpiry = null;
        }
    }

    /** A rebalance starts: it ends by {@code timeoutMs} at the latest (at least 1 ms away). */
    void startRebalanceDeadline(int timeoutMs) {
        cancelRebalanceDeadline();
        rebalanceDeadline = timer.schedule(rebalanceTimedOut, Math.max(timeoutMs, 1), TimeUnit.MILLISECONDS);
    }

    void cancelRebalanceDeadline() {
        if (rebalanceDeadline != null) {
            rebalanceDeadline.cancel(false);
            rebalanceDeadline = null;
        }
    }
}
