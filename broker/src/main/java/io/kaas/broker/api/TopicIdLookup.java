package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.storage.TopicInfo;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * The APIs that name topics by id from some version on (OffsetCommit and OffsetFetch v10, KIP-848;
 * TxnOffsetCommit v6, KIP-1319) resolve them here, both ways, against the catalog: an id no existing
 * topic has is UNKNOWN_TOPIC_ID to the caller, as Apache answers.
 */
final class TopicIdLookup {
    private TopicIdLookup() {}

    /** The topic {@code id} names now, if any. */
    static Optional<String> name(TopicCatalog topics, Uuid id) {
        return topics.topicById(Uuids.toJava(id)).map(TopicInfo::name);
    }

    /** {@code name}'s id on the wire, or the zero id when no such topic exists. */
    static Uuid id(TopicCatalog topics, String name) {
        return topics.topic(name).map(t -> Uuids.toKafka(t.topicId())).orElse(Uuid.ZERO_UUID);
    }
}
