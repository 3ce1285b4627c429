package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.TopicConfigChanges;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.group.streams.StreamsHeartbeat;
import io.kaas.broker.share.ShareGroups;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * StreamsGroupHeartbeat (KIP-1071): join, stay, reconcile and leave a streams group in one request; answered at once.
 * The internal topics (repartition, changelog) the group's topology misses are created here, after the answer is
 * made, with the partition counts and configs the coordinator derived, as Apache's request handler does: the member
 * is told MISSING_INTERNAL_TOPICS now and finds them on a later heartbeat.
 */
public final class StreamsGroupHeartbeatHandler
        implements ApiHandler<org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData> {
    private static final Logger LOG = LoggerFactory.getLogger(StreamsGroupHeartbeatHandler.class);

    private final GroupCoordinator groups;
    private final TopicCatalog topics;
    private final GroupIdTypes types;

    public StreamsGroupHeartbeatHandler(GroupCoordinator groups, TopicCatalog topics, ShareGroups shares) {
        this.groups = groups;
        this.topics = topics;
        this.types = new GroupIdTypes(groups, shares);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(
            RequestContext ctx, org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData request) {
        if (request.groupId() != null && types.isShareGroup(request.groupId())) {
            return CompletableFuture.completedFuture(new StreamsGroupHeartbeatResponseData()
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage(GroupIdTypes.notA("streams", request.groupId())));
        }
        StreamsHeartbeat hb = groups.streamsHeartbeat(
                request, ctx.apiVersion(), JoinGroupHandler.clientId(ctx), JoinGroupHandler.clientHost(ctx));
        StreamsGroupHeartbeatResponseData response = hb.response();
        if (!hb.topicsToCreate().isEmpty()) {
            Set<String> allowed = ctx.allowedNames(
                    AclOperation.CREATE,
                    ResourceType.TOPIC,
                    List.copyOf(hb.topicsToCreate().keySet()));
            List<String> refused = new ArrayList<>();
            hb.topicsToCreate().values().forEach(t -> {
                if (allowed.contains(t.name())) {
                    create(request.groupId(), t);
                } else {
                    refused.add(t.name());
                }
            });
            if (!refused.isEmpty()) {
                // Apache: the member is told which internal topics it may not have created.
                if (response.status() == null) {
                    response.setStatus(new ArrayList<>());
                }
                response.status()
                        .add(new StreamsGroupHeartbeatResponseData.Status()
                                .setStatusCode(StreamsGroupHeartbeatResponse.Status.MISSING_INTERNAL_TOPICS.code())
                                .setStatusDetail(
                                        "Unauthorized to CREATE on topics " + String.join(",", refused) + "."));
            }
        }
        return CompletableFuture.completedFuture(response);
    }

    private void create(String groupId, CreateTopicsRequestData.CreatableTopic t) {
        if (topics.topic(t.name()).isPresent()) {
            return; // another member's heartbeat created it meanwhile
        }
        Map<String, String> raw = new LinkedHashMap<>();
        t.configs().forEach(c -> raw.put(c.name(), c.value()));
        try {
            topics.create(
                    t.name(),
                    t.numPartitions() > 0 ? t.numPartitions() : topics.defaultPartitions(),
                    TopicConfigChanges.build(Map.of(), raw));
            LOG.info(
                    "streams group {}: created internal topic {} ({} partitions)",
                    groupId,
                    t.name(),
                    t.numPartitions());
        } catch (RuntimeException e) {
            // Raced by another member's heartbeat, or refused: the member keeps being told MISSING_INTERNAL_TOPICS.
            if (topics.topic(t.name()).isEmpty()) {
                LOG.warn("streams group {}: could not create internal topic {}: {}", groupId, t.name(), e.getMessage());
            }
        }
    }
}
