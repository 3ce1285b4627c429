package io.kaas.cluster;

import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topics of the shared directory as the store lists them: the topics found on the volume are published (created
 * here, or by a broker that died before publishing), and a deleted topic goes in steps (marked deleted on the
 * volume, unpublished, its partitions let go by their owners, then its directory removed, by whichever broker finds
 * nobody holding it).
 *
 * <p>{@link #publish}, {@link #releaseClosed} and {@link #finishDeletions} run on {@code kaas-cluster};
 * {@link #delete} on a request handler thread. Each step is a single store call or engine call, safe to run
 * concurrently with the others.
 */
final class SharedTopics {
    private static final Logger LOG = LoggerFactory.getLogger(SharedTopics.class);

    private final ClusterStore store;
    private final StorageEngine engine;
    private final Membership membership;
    private final LongSupplier nanoClock;

    SharedTopics(ClusterStore store, StorageEngine engine, Membership membership, LongSupplier nanoClock) {
        this.store = store;
        this.engine = engine;
        this.membership = membership;
        this.nanoClock = nanoClock;
    }

    /** Re-reads the volume's topics and publishes those the store does not list yet; returns the published ones. */
    Map<String, Integer> publish() {
        engine.refreshTopics();
        Map<String, Integer> published = store.topics();
        boolean changed = false;
        for (TopicInfo t : engine.topics()) {
            if (published.getOrDefault(t.name(), 0) < t.partitions()) {
                store.publishTopic(t.name(), t.partitions());
                changed = true;
            }
        }
        return changed ? store.topics() : published;
    }

    /** Partitions of {@code heldBefore} that a refresh closed (another broker is deleting their topic): let go. */
    void releaseClosed(Set<TopicPartition> heldBefore) {
        for (TopicPartition tp : heldBefore) {
            if (!engine.taken().containsKey(tp) && engine.topic(tp.topic()).isEmpty()) {
                store.release(tp, membership.brokerId());
            }
        }
    }

    /**
     * Deletes {@code topic} across the cluster: marked deleted on the volume (every other broker forgets it at its
     * next reconcile, closes what it held of it and lets go), unpublished, then, once no broker holds any of its
     * partitions, its directory removed. Waits up to {@code wait} for the last step; past that the directory is
     * removed by a later reconcile here or on another broker ({@link #finishDeletions}). No owner recreates it: an
     * engine never opens a topic marked deleted, and the controller's next assignment drops it.
     */
    void delete(String topic, Duration wait) {
        int partitions = engine.topic(topic).map(TopicInfo::partitions).orElse(0);
        Set<TopicPartition> mine = new HashSet<>();
        engine.taken().keySet().stream().filter(tp -> tp.topic().equals(topic)).forEach(mine::add);
        engine.markTopicDeleted(topic); // closes what this broker held of it
        mine.forEach(tp -> store.release(tp, membership.brokerId()));
        store.unpublishTopic(topic);
        long deadline = nanoClock.getAsLong() + wait.toNanos();
        while (held(topic, partitions)) {
            if (nanoClock.getAsLong() > deadline) {
                LOG.info("topic {}: marked deleted; its directory goes once its owners let go", topic);
                return;
            }
            try {
                Thread.sleep(50); // the owners close and release at their next reconcile (a watch event away)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        engine.removeDeletedTopic(topic);
    }

    /** Topics marked deleted on the volume: unpublished (a deleter may have died first), removed once nobody holds them. */
    void finishDeletions(Map<String, Integer> published) {
        engine.topicsBeingDeleted().forEach((topic, partitions) -> {
            if (published.containsKey(topic)) {
                store.unpublishTopic(topic);
            }
            if (!held(topic, partitions)) {
                engine.removeDeletedTopic(topic);
                LOG.info("broker {}: removed the directory of deleted topic {}", membership.brokerId(), topic);
            }
        });
    }

    private boolean held(String topic, int partitions) {
        for (int p = 0; p < partitions; p++) {
            if (store.holder(new TopicPartition(topic, p)).isPresent()) {
                return true;
            }
        }
        return false;
    }
}
