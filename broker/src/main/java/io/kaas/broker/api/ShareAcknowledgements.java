package io.kaas.broker.api;

import io.kaas.broker.share.ShareFetches;
import io.kaas.protocol.RequestContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The acknowledgement step ShareFetch and ShareAcknowledge share: resolve each partition a request
 * acknowledges (its topic by id, READ on it) and apply its batches; the result is each partition's
 * acknowledgement error, known once the change is durable (acknowledgements are answered only then).
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

    /** Applies {@code acks} of {@code p}; its result (once durable) lands in {@code results}, in request order. */
    static CompletableFuture<Errors> apply(
            ShareFetches fetches,
            String groupId,
            String memberId,
            Named p,
            List<ShareFetches.Ack> acks,
            Map<Named, Errors> results) {
        synchronized (results) {
            results.put(p, Errors.NONE);
        }
        CompletableFuture<Errors> e = p.resolved().isEmpty()
                ? CompletableFuture.completedFuture(Errors.UNKNOWN_TOPIC_OR_PARTITION)
                : fetches.acknowledge(groupId, memberId, p.resolved().get(), acks);
        return e.thenApply(error -> {
            synchronized (results) {
                results.put(p, error);
            }
            return error;
        });
    }
}
