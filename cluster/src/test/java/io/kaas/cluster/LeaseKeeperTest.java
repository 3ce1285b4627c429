package io.kaas.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.TopicPartition;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The self-fence arithmetic on a hand-driven monotonic clock. */
class LeaseKeeperTest {
    private static final long S = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong(1_000 * S);
    private final Deque<Object> renewals = new ArrayDeque<>();
    private final AtomicBoolean lostCalled = new AtomicBoolean();

    private LeaseKeeper keeper() {
        return new LeaseKeeper(
                new ScriptedStore(),
                7,
                Duration.ofSeconds(6),
                Duration.ofSeconds(1),
                now::get,
                now.get(),
                () -> lostCalled.set(true));
    }

    @Test
    void fencedBeforeTheLeaseCanExpireCountingFromWhenTheRenewalWasSent() {
        LeaseKeeper k = keeper();
        assertThat(k.mayAcknowledge()).isTrue();
        now.addAndGet(4_999_999_999L);
        assertThat(k.mayAcknowledge()).as("grant + ttl - margin not reached").isTrue();
        now.addAndGet(1);
        assertThat(k.mayAcknowledge()).as("at grant + ttl - margin").isFalse();

        // A renewal the store answers late still counts from when it was sent.
        renewals.add(Duration.ofSeconds(6));
        long sent = now.get();
        k.renewOnce();
        assertThat(k.deadlineNanos()).isEqualTo(sent + 5 * S);
        assertThat(k.mayAcknowledge()).isTrue();
    }

    @Test
    void aFailedRenewalLeavesTheDeadlineWhereItWas() {
        LeaseKeeper k = keeper();
        long before = k.deadlineNanos();
        renewals.add(new CoordinationException("down"));
        now.addAndGet(2 * S);
        k.renewOnce();
        assertThat(k.deadlineNanos()).isEqualTo(before);
        now.addAndGet(3 * S);
        assertThat(k.mayAcknowledge()).isFalse();
        assertThat(k.lost()).isFalse();
        // etcd back in time: a renewal moves the deadline again.
        renewals.add(Duration.ofSeconds(6));
        k.renewOnce();
        assertThat(k.mayAcknowledge()).isTrue();
    }

    @Test
    void aLeaseFoundGoneFencesForGood() {
        LeaseKeeper k = keeper();
        renewals.add(Duration.ZERO);
        k.renewOnce();
        assertThat(k.lost()).isTrue();
        assertThat(lostCalled).isTrue();
        assertThat(k.mayAcknowledge()).isFalse();
        renewals.add(Duration.ofSeconds(6));
        k.renewOnce();
        assertThat(k.mayAcknowledge()).as("never comes back").isFalse();
    }

    @Test
    void aProcessStoppedPastTheDeadlineIsFencedTheMomentItRunsAgain() {
        LeaseKeeper k = keeper();
        renewals.add(Duration.ofSeconds(6));
        k.renewOnce();
        now.addAndGet(60 * S); // SIGSTOP for a minute: no renewal ran meanwhile
        assertThat(k.mayAcknowledge()).isFalse();
    }

    /** Answers renewals from {@link #renewals}; nothing else is called. */
    private final class ScriptedStore implements ClusterStore {
        @Override
        public Duration renewLease(long lease) {
            Object next = renewals.poll();
            if (next instanceof RuntimeException e) {
                throw e;
            }
            return (Duration) next;
        }

        @Override
        public long grantLease(Duration ttl) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void revokeLease(long lease) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean register(BrokerRegistration broker, long lease) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<Integer, BrokerRegistration> brokers() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> campaign(int brokerId, long lease) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Versioned<Assignment> assignment() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean compareAndSetAssignment(long expectedVersion, Assignment next) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<String, Integer> topics() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void publishTopic(String topic, int partitions) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void unpublishTopic(String topic) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Versioned<Integer> epoch(TopicPartition tp) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean claim(TopicPartition tp, long v, int next, int brokerId, long lease) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void release(TopicPartition tp, int brokerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.OptionalInt holder(TopicPartition tp) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long allocateProducerIdBlock(long size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AutoCloseable watch(Runnable onChange, Runnable onLost) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {}
    }
}
