package io.kaas.broker.api;

import io.kaas.broker.share.ShareFetches;
import io.kaas.protocol.RequestContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The acknowledgement step ShareFetch and ShareAcknowledge share: resolve each partition a request
 * acknowledges (its topic by id, READ on it) and apply its batches; the result is each partition's
 * acknowledgement error.
 */
final class ShareAcknowledgements {
    private ShareAcknowledgements() {}

    /** A partition of the request as named on the wire, and its topic if it exists. */
    record Named(Uuid topicId, int partition, Optional<TopicIdPartition> resolved) {}

    static Named resolve(RequestContext ctx, ShareFetches fetches, Uuid topicId, int partition) {
        Optional<TopicIdPartition> tp = fetches.resolve(topicId, partition)
                .filter(p -> ctx.allowed(AclOperation.READ, ResourceType.TOPIC, p.topic()));
        return new Named(topicId, partition, tp);
    }

    static Errors apply(
            ShareFetches fetches,
            String groupId,
            String memberId,
            Named p,
            List<ShareFetches.Ack> acks,
            Map<Named, Errors> results) {
        Errors e = p.resolved().isEmpty()
                ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                : fetches.acknowledge(groupId, memberId, p.resolved().get(), acks);
        results.put(p, e);
        return e;
    }
}
