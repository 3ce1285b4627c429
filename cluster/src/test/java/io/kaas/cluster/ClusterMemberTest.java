package io.kaas.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.EngineObserver;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cluster membership over an in-memory {@link ClusterStore} and a hand-moved monotonic clock, with real engines
 * sharing one directory: no etcd, no sleeps. The lease is long in real time (renewals and the safety-net reconcile
 * never run on their own during a test); the test moves the clock and runs renewals and reconciles itself.
 */
class ClusterMemberTest {
    private static final long S = 1_000_000_000L;
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration MARGIN = Duration.ofMinutes(1);
    private static final Duration GRACE = Duration.ofSeconds(30);
    private static final String TOPIC = "orders";

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_000 * S);
    private final InMemoryClusterStore store = InMemoryClusterStore.create(now::get);
    private final ClusterConfig config =
            new ClusterConfig((cluster, timeout) -> store.client(), TTL, MARGIN, GRACE, TTL);
    private final List<StorageEngine> engines = new ArrayList<>();
    private final List<ClusterMember> members = new ArrayList<>();

    /** What a broker's coordinators were told: slot → coordinator epoch, while held. */
    private static final class SlotsSeen implements CoordinatorSlots.Listener {
        final Map<TopicPartition, Integer> held = new ConcurrentHashMap<>();
        final Set<TopicPartition> lost = ConcurrentHashMap.newKeySet();

        @Override
        public void gained(CoordinatorSlots kind, int slot, int epoch) {
            held.put(kind.slot(slot), epoch);
        }

        @Override
        public void lost(CoordinatorSlots kind, int slot) {
            held.remove(kind.slot(slot));
            lost.add(kind.slot(slot));
        }
    }

    private StorageEngine engine() {
        StorageEngine e = DiskStorageEngine.shared(EngineConfig.defaults(dir), EngineObserver.NONE);
        engines.add(e);
        return e;
    }

    private ClusterMember member(StorageEngine engine) {
        ClusterMember m = new ClusterMember(store.client(), config, engine, now::get);
        members.add(m);
        return m;
    }

    private static BrokerRegistration broker(int id) {
        return new BrokerRegistration(id, "127.0.0.1", 9000 + id);
    }

    @AfterEach
    void closeAll() {
        // As the broker does: the engine first (its files written while the lease holds), then the membership.
        for (int i = 0; i < members.size(); i++) {
            StorageEngine e = engines.get(i);
            if (!members.get(i).mayAcknowledge() && e instanceof DiskStorageEngine d) {
                d.closeFenced();
            } else {
                e.close();
            }
            members.get(i).close();
        }
    }

    private static Set<TopicPartition> partitions(int n) {
        Set<TopicPartition> out = new HashSet<>();
        for (int p = 0; p < n; p++) {
            out.add(new TopicPartition(TOPIC, p));
        }
        return out;
    }

    @Test
    void aLoneMemberIsTheControllerAndTakesOverEveryPartitionAndSlot() throws Exception {
        StorageEngine engine = engine();
        engine.createTopic(TOPIC, 3, TopicConfig.EMPTY);
        ClusterMember m = member(engine);
        SlotsSeen slots = new SlotsSeen();
        m.onCoordinatorSlots(slots);

        m.join(broker(1));
        m.reconcileNow();

        assertThat(m.isController()).isTrue();
        assertThat(m.mayAcknowledge()).isTrue();
        assertThat(engine.taken()).containsOnlyKeys(partitions(3)).containsValue(1);
        assertThat(store.topics()).containsEntry(TOPIC, 3);
        partitions(3).forEach(tp -> assertThat(store.holder(tp)).hasValue(1));
        assertThat(m.heldSlots()).hasSize(CoordinatorSlots.GROUP_SLOTS + CoordinatorSlots.TRANSACTION_SLOTS);
        assertThat(slots.held).isEqualTo(m.heldSlots());
        BrokerNode me = new BrokerNode(1, "127.0.0.1", 9001, "c");
        assertThat(m.leader(new TopicPartition(TOPIC, 2), me)).hasValue(1);
        assertThat(m.groupCoordinator(7, me)).isEqualTo(1);
    }

    @Test
    void twoMembersAgreeOnWhoOwnsWhatAndNeverHoldTheSamePartition() throws Exception {
        StorageEngine e1 = engine();
        e1.createTopic(TOPIC, 6, TopicConfig.EMPTY);
        ClusterMember m1 = member(e1);
        m1.join(broker(1));
        StorageEngine e2 = engine();
        ClusterMember m2 = member(e2);
        m2.join(broker(2));

        converge(m1, m2);

        Set<TopicPartition> held1 = e1.taken().keySet();
        Set<TopicPartition> held2 = e2.taken().keySet();
        assertThat(held1).as("the newcomer got its share").hasSize(3);
        assertThat(held2).hasSize(3).doesNotContainAnyElementsOf(held1);
        BrokerNode n1 = new BrokerNode(1, "127.0.0.1", 9001, "c");
        BrokerNode n2 = new BrokerNode(2, "127.0.0.1", 9002, "c");
        for (TopicPartition tp : partitions(6)) {
            int owner = held1.contains(tp) ? 1 : 2;
            assertThat(store.holder(tp)).as("%s", tp).hasValue(owner);
            assertThat(m1.leader(tp, n1)).as("m1 on %s", tp).hasValue(owner);
            assertThat(m2.leader(tp, n2)).as("m2 on %s", tp).hasValue(owner);
        }
        // A partition that moved was claimed in the next epoch: the old owner's late writes are never visible.
        held2.forEach(tp -> assertThat(e2.taken().get(tp)).isEqualTo(2));
        Map<TopicPartition, Integer> slots1 = m1.heldSlots();
        Map<TopicPartition, Integer> slots2 = m2.heldSlots();
        assertThat(slots1.keySet()).doesNotContainAnyElementsOf(slots2.keySet());
        assertThat(slots1.size() + slots2.size())
                .isEqualTo(CoordinatorSlots.GROUP_SLOTS + CoordinatorSlots.TRANSACTION_SLOTS);
        assertThat(m2.isController()).as("one controller").isFalse();
        assertThat(m1.brokers(n1)).extracting(BrokerNode::nodeId).containsExactly(1, 2);
    }

    @Test
    void aMemberWhoseLeaseLapsesFencesItselfAndTheOtherTakesOverAfterTheGrace() throws Exception {
        StorageEngine e1 = engine();
        e1.createTopic(TOPIC, 6, TopicConfig.EMPTY);
        ClusterMember m1 = member(e1);
        m1.join(broker(1));
        StorageEngine e2 = engine();
        ClusterMember m2 = member(e2);
        SlotsSeen slots2 = new SlotsSeen();
        m2.onCoordinatorSlots(slots2);
        m2.join(broker(2));
        converge(m1, m2);
        Map<TopicPartition, Integer> ofTwo = Map.copyOf(e2.taken());
        Map<TopicPartition, Integer> slotsOfTwo = Map.copyOf(slots2.held);
        assertThat(ofTwo).isNotEmpty();

        // Broker 1 renews; broker 2 is silent (a long pause) past its lease.
        now.addAndGet(TTL.toNanos() / 2);
        m1.renewLeaseNow();
        now.addAndGet(TTL.toNanos() / 2 - MARGIN.toNanos());
        assertThat(m2.mayAcknowledge())
                .as("fenced at grant + ttl - margin, before the store can expire the lease")
                .isFalse();
        assertThat(m1.mayAcknowledge()).isTrue();
        assertThat(store.holder(ofTwo.keySet().iterator().next()))
                .as("not expired yet")
                .hasValue(2);
        now.addAndGet(MARGIN.toNanos());
        store.tick();

        m1.reconcileNow();
        assertThat(store.brokers()).containsOnlyKeys(1);
        assertThat(e1.taken())
                .as("within the grace nothing moves")
                .doesNotContainKeys(ofTwo.keySet().toArray(new TopicPartition[0]));

        now.addAndGet(GRACE.toNanos() + S);
        m1.reconcileNow();
        assertThat(e1.taken()).containsOnlyKeys(partitions(6));
        ofTwo.forEach((tp, epoch) -> assertThat(e1.taken().get(tp)).as("%s", tp).isEqualTo(epoch + 1));
        assertThat(m1.heldSlots()).hasSize(CoordinatorSlots.GROUP_SLOTS + CoordinatorSlots.TRANSACTION_SLOTS);

        // Broker 2 wakes up: its next renewal finds the lease gone; it drops everything without a write and joins
        // again, as a newcomer.
        // (Its reconciles after rejoining may already have claimed a share anew: only in newer epochs.)
        m2.renewLeaseNow();
        m2.reconcileNow();
        assertThat(slots2.lost).containsAll(slotsOfTwo.keySet());
        slots2.held.forEach((slot, epoch) -> assertThat(epoch).as("%s", slot).isNotEqualTo(slotsOfTwo.get(slot)));
        e2.taken().forEach((tp, epoch) -> assertThat(epoch).as("%s", tp).isGreaterThan(ofTwo.getOrDefault(tp, 0) + 1));
        assertThat(store.brokers()).containsOnlyKeys(1, 2);
        assertThat(m2.mayAcknowledge()).as("a new lease").isTrue();
        converge(m1, m2);
        assertThat(e2.taken()).as("its share again, in newer epochs").hasSize(3);
    }

    @Test
    void theStoreFailingLeavesOwnershipAloneAndTheFenceCloses() throws Exception {
        StorageEngine engine = engine();
        engine.createTopic(TOPIC, 2, TopicConfig.EMPTY);
        ClusterMember m = member(engine);
        m.join(broker(1));
        m.reconcileNow();
        assertThat(engine.taken()).containsOnlyKeys(partitions(2));

        store.failing(true);
        m.reconcileNow(); // logged and retried later: nothing given up on an outage alone
        m.renewLeaseNow();
        assertThat(engine.taken()).containsOnlyKeys(partitions(2));
        assertThat(m.mayAcknowledge()).as("the deadline stands").isTrue();
        now.addAndGet(TTL.minus(MARGIN).toNanos());
        assertThat(m.mayAcknowledge())
                .as("no renewal got through: fenced before the lease can expire")
                .isFalse();

        store.failing(false);
        m.renewLeaseNow();
        assertThat(m.mayAcknowledge())
                .as("the lease still held: acknowledging again")
                .isTrue();
        engine.createTopic("later", 1, TopicConfig.EMPTY);
        m.reconcileNow();
        assertThat(engine.taken()).containsKey(new TopicPartition("later", 0));
    }

    @Test
    void anUnreachableStoreOrALiveDuplicateIdFailsTheJoin() {
        ClusterMember m1 = member(engine());
        m1.join(broker(1));
        ClusterMember twin = member(engine());
        assertThatThrownBy(() -> twin.join(broker(1)))
                .isInstanceOf(CoordinationException.class)
                .hasMessageContaining("already registered");
        assertThat(store.brokers()).containsOnlyKeys(1);

        store.failing(true);
        ClusterMember m3 = member(engine());
        assertThatThrownBy(() -> m3.join(broker(3))).isInstanceOf(CoordinationException.class);
        store.failing(false);
    }

    @Test
    void aCleanCloseHandsThePartitionsOnAfterTheGraceWithoutWaitingForTheLease() throws Exception {
        StorageEngine e1 = engine();
        e1.createTopic(TOPIC, 4, TopicConfig.EMPTY);
        ClusterMember m1 = member(e1);
        m1.join(broker(1));
        StorageEngine e2 = engine();
        ClusterMember m2 = member(e2);
        m2.join(broker(2));
        converge(m1, m2);

        e2.close();
        m2.close();
        engines.remove(1);
        members.remove(1);
        assertThat(store.brokers()).as("the lease revoked at once").containsOnlyKeys(1);
        m1.reconcileNow(); // first seen gone: the grace starts
        now.addAndGet(GRACE.toNanos() + S);
        m1.reconcileNow();
        assertThat(e1.taken()).containsOnlyKeys(partitions(4));
    }

    /** Reconciles both, in turn, until a pass changes nothing (each pass acts on what the other wrote). */
    private void converge(ClusterMember a, ClusterMember b) {
        for (int i = 0; i < 4; i++) {
            a.reconcileNow();
            b.reconcileNow();
        }
    }
}
