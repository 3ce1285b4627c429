package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.GroupOffsetsFile;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * One topic of an OffsetCommit or TxnOffsetCommit, resolved once for all its partitions: its name (from the topic id
 * in versions that name topics by id, KIP-848 / KIP-1319), whether the principal may READ it, and the topic. The
 * per-partition refusals are the same rule for both APIs, in Apache's order: UNKNOWN_TOPIC_ID, then
 * TOPIC_AUTHORIZATION_FAILED, then UNKNOWN_TOPIC_OR_PARTITION.
 *
 * @param name null when an id names no topic
 */
record CommittedTopic(String name, boolean allowed, Optional<TopicInfo> topic) {
    static CommittedTopic resolve(
            RequestContext ctx, TopicCatalog topics, boolean byId, String requestedName, Uuid topicId) {
        String name = byId ? TopicIdLookup.name(topics, topicId).orElse(null) : requestedName;
        return new CommittedTopic(
                name,
                name != null && ctx.allowed(AclOperation.READ, ResourceType.TOPIC, name),
                name == null ? Optional.empty() : topics.topic(name));
    }

    /** The name to answer with: "" for an unknown id, as Apache. */
    String answeredName() {
        return name == null ? "" : name;
    }

    /** Why a commit of {@code partition} is refused before the group sees it; NONE when it is not. */
    Errors refusal(int partition) {
        if (name == null) {
            return Errors.UNKNOWN_TOPIC_ID;
        }
        if (!allowed) {
            return Errors.TOPIC_AUTHORIZATION_FAILED;
        }
        return TopicCatalog.hasPartition(topic, partition) ? Errors.NONE : Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }

    GroupOffsetsFile.Committed commit(int partition, long offset, int leaderEpoch, String metadata, long nowMs) {
        return new GroupOffsetsFile.Committed(name, partition, offset, leaderEpoch, metadata, nowMs);
    }
}
