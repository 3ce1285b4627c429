package io.kaas.broker.group;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A KIP-848 consumer group's deadlines per member: its session (a member not heard from within
 * {@code group.consumer.session.timeout.ms} is removed) and its revocation (a member that does not give up partitions
 * within its rebalance timeout is fenced). Scheduled on the broker's {@code kaas-timer} (a test's fake scheduler); the
 * callbacks re-enter the group through its monitor and check that what they expire is still current. Called under the
 * group's monitor.
 */
final class ConsumerMemberTimers {
    private final ScheduledExecutorService timer;
    private final Supplier<ConsumerGroupConfig> config;
    private final Consumer<ConsumerGroupMember> sessionExpired;
    private final Consumer<ConsumerGroupMember> revocationTimedOut;

    ConsumerMemberTimers(
            ScheduledExecutorService timer,
            Supplier<ConsumerGroupConfig> config,
            Consumer<ConsumerGroupMember> sessionExpired,
            Consumer<ConsumerGroupMember> revocationTimedOut) {
        this.timer = timer;
        this.config = config;
        this.sessionExpired = sessionExpired;
        this.revocationTimedOut = revocationTimedOut;
    }

    /** The member heartbeated: its session starts again. */
    void resetSession(ConsumerGroupMember m) {
        cancelSession(m);
        m.sessionExpiry =
                timer.schedule(() -> sessionExpired.accept(m), config.get().sessionTimeoutMs(), TimeUnit.MILLISECONDS);
    }

    /** KIP-848: a member has its rebalance timeout to revoke; one that does not is fenced (removed). */
    void startRevocationDeadline(ConsumerGroupMember m) {
        cancelRevocationDeadline(m);
        int timeoutMs =
                m.rebalanceTimeoutMs > 0 ? m.rebalanceTimeoutMs : config.get().sessionTimeoutMs();
        m.revocationDeadline = timer.schedule(() -> revocationTimedOut.accept(m), timeoutMs, TimeUnit.MILLISECONDS);
    }

    static void cancelRevocationDeadline(ConsumerGroupMember m) {
        if (m.revocationDeadline != null) {
            m.revocationDeadline.cancel(false);
            m.revocationDeadline = null;
        }
    }

    static void cancelAll(ConsumerGroupMember m) {
        if (m.sessionExpiry != null) {
            m.sessionExpiry.cancel(false);
            m.sessionExpiry = null;
        }
        cancelRevocationDeadline(m);
    }

    private static void cancelSession(ConsumerGroupMember m) {
        if (m.sessionExpiry != null) {
            m.sessionExpiry.cancel(false);
            m.sessionExpiry = null;
        }
    }
}
