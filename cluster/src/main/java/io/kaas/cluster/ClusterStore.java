package io.kaas.cluster;

import io.kaas.storage.TopicPartition;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The coordination seam: what several brokers over one shared data directory agree on, kept in a proven
 * external store (etcd or Kubernetes, each a backend module behind {@link ClusterStoreProvider}) — never a protocol of our own. Small on purpose: leases,
 * membership, one controller, the assignment, and a per-partition epoch, each a compare-and-set or a watch.
 *
 * <p>Every write that decides ownership is a compare-and-set against the version the caller read, so two
 * brokers acting on a stale view cannot both win. Calls block (with the store's own timeouts) and throw
 * {@link CoordinationException} when the store cannot be reached; they are never made on a Netty event loop.
 * Thread-safe.
 */
public interface ClusterStore extends AutoCloseable {
    /** A new lease of {@code ttl}; keys written under it vanish when it expires or is revoked. */
    long grantLease(Duration ttl);

    /**
     * Renews {@code lease} once; returns the time it has left as the store counts it from (at the earliest)
     * the moment it received this call, or {@link Duration#ZERO} when the lease is gone (expired or revoked).
     */
    Duration renewLease(long lease);

    /** Revokes {@code lease} (a clean stop): its keys vanish at once. */
    void revokeLease(long lease);

    /**
     * Registers {@code broker} under {@code lease}. Returns false, writing nothing, when a live broker
     * already holds that id.
     */
    boolean register(BrokerRegistration broker, long lease);

    /** The live brokers (those whose lease holds), by id. */
    Map<Integer, BrokerRegistration> brokers();

    /**
     * Campaigns to be the controller under {@code lease}: completes when this broker is elected (at once
     * when no one else holds it), and never while another live lease holds it.
     */
    CompletableFuture<Void> campaign(int brokerId, long lease);

    /** The assignment and its version (0: none written yet). */
    Versioned<Assignment> assignment();

    /** Writes {@code next} only if the assignment's version is still {@code expectedVersion}. */
    boolean compareAndSetAssignment(long expectedVersion, Assignment next);

    /** Topic name → partition count, as the brokers that created or grew them published it. */
    Map<String, Integer> topics();

    /** Publishes that {@code topic} exists with {@code partitions} partitions (create or grow). */
    void publishTopic(String topic, int partitions);

    /** Forgets {@code topic} (deleted). */
    void unpublishTopic(String topic);

    /** The partition's leader epoch and its version (epoch 0, version 0: never taken). */
    Versioned<Integer> epoch(TopicPartition tp);

    /**
     * Takes {@code tp} for {@code brokerId}, atomically: only if its epoch's version is still
     * {@code expectedEpochVersion} and no broker holds it (a holder lets go with {@link #release}, or its
     * lease expires); then the epoch becomes {@code nextEpoch} and {@code brokerId} its holder, under
     * {@code lease}. False, writing nothing, otherwise.
     */
    boolean claim(TopicPartition tp, long expectedEpochVersion, int nextEpoch, int brokerId, long lease);

    /** {@code brokerId} lets go of {@code tp} (after closing it): the next owner may claim it. No-op if not the holder. */
    void release(TopicPartition tp, int brokerId);

    /** The broker holding {@code tp} now, if any. */
    java.util.OptionalInt holder(TopicPartition tp);

    /**
     * Reserves {@code size} producer ids for this broker alone and returns the first (compare-and-set on one
     * counter): brokers sharing a directory must never hand out the same id.
     */
    long allocateProducerIdBlock(long size);

    /**
     * Calls {@code onChange} (on the store's thread; it must not block) whenever brokers, the assignment or
     * the topics change, and once the watch is in place. {@code onLost} is called when the watch ends
     * for good (the store closed or unreachable); a caller re-reads and watches again.
     */
    AutoCloseable watch(Runnable onChange, Runnable onLost);

    @Override
    void close();
}
