package io.kaas.broker.group.streams;

import io.kaas.storage.TopicInfo;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateRequestData;
import org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.group.api.streams.StreamsGroupTopologyDescription;
import org.apache.kafka.coordinator.group.streams.StreamsGroupTopologyDescriptionBackoff;
import org.apache.kafka.coordinator.group.streams.StreamsGroupTopologyDescriptionConverter;

/**
 * The streams groups this broker coordinates, by id. The group coordinator decides which kind a group id is (classic,
 * consumer or streams) and whether this broker coordinates it; this class checks heartbeat requests as Apache does,
 * routes them to their {@link LiveStreamsGroup} and describes groups. Membership is in memory, as for consumer groups:
 * after a restart members get UNKNOWN_MEMBER_ID and rejoin; committed offsets persist in the group's offsets file.
 */
public final class StreamsGroups {
    private final ScheduledExecutorService timer;
    /** A group's settings now: the broker's, with the group's configs over them. */
    private final Function<String, StreamsGroupConfig> configOf;

    private final Supplier<Map<String, TopicInfo>> topics;
    private final Map<String, LiveStreamsGroup> groups = new ConcurrentHashMap<>();
    /**
     * Apache's re-solicitation window for topology descriptions: once a member was asked for the description of an
     * epoch, others are not asked again until it expires (or the description arrives), so a whole group does not
     * push the same description at once.
     */
    private final StreamsGroupTopologyDescriptionBackoff descriptionBackoff =
            new StreamsGroupTopologyDescriptionBackoff(Time.SYSTEM);

    public StreamsGroups(
            ScheduledExecutorService timer,
            Function<String, StreamsGroupConfig> configOf,
            Supplier<Map<String, TopicInfo>> topics) {
        this.timer = timer;
        this.configOf = configOf;
        this.topics = topics;
    }

    /** Apache's request checks; empty when valid. */
    public Optional<StreamsHeartbeat> invalid(StreamsGroupHeartbeatRequestData req) {
        return StreamsMemberChecks.invalid(req);
    }

    public Optional<LiveStreamsGroup> get(String groupId) {
        return Optional.ofNullable(groups.get(groupId));
    }

    public LiveStreamsGroup getOrCreate(String groupId) {
        return groups.computeIfAbsent(groupId, id -> new LiveStreamsGroup(id, () -> configOf.apply(id), timer));
    }

    public void remove(LiveStreamsGroup g) {
        g.markDead();
        descriptionBackoff.clearGroup(g.groupId());
        groups.remove(g.groupId(), g);
    }

    public Map<String, LiveStreamsGroup> all() {
        return groups;
    }

    /** One heartbeat of a member of {@code g}, against the broker's topics now. */
    public StreamsHeartbeat heartbeat(
            LiveStreamsGroup g, StreamsGroupHeartbeatRequestData req, short version, String clientId, String host) {
        StreamsHeartbeat hb = g.heartbeat(req, version, clientId, host, new TopicImage(topics.get()));
        askForDescriptionIfMissing(g, req, version, hb.response());
        return hb;
    }

    /**
     * Apache's {@code maybeSetTopologyDescriptionRequired}: a member of an accepted heartbeat (v1+, not leaving, not
     * told its topology is stale) is asked to push the topology description when none is stored for the group's
     * epoch, and no other member was asked within the back-off window.
     */
    private void askForDescriptionIfMissing(
            LiveStreamsGroup g,
            StreamsGroupHeartbeatRequestData req,
            short version,
            StreamsGroupHeartbeatResponseData r) {
        if (version < 1 || req.memberEpoch() < 0 || r.errorCode() != Errors.NONE.code()) {
            return;
        }
        boolean stale = r.status() != null
                && r.status().stream()
                        .anyMatch(s -> s.statusCode() == StreamsGroupHeartbeatResponse.Status.STALE_TOPOLOGY.code());
        int epoch = g.topologyEpochWithoutDescription();
        if (!stale && epoch >= 0 && descriptionBackoff.armIfNotActive(g.groupId(), epoch)) {
            r.setTopologyDescriptionRequired(true);
        }
    }

    /** StreamsGroupTopologyDescriptionUpdate to a group known to be a streams group. */
    public StreamsGroupTopologyDescriptionUpdateResponseData updateDescription(
            LiveStreamsGroup g, StreamsGroupTopologyDescriptionUpdateRequestData req) {
        StreamsGroupTopologyDescription d;
        try {
            d = StreamsGroupTopologyDescriptionConverter.fromRequest(req.topologyDescription());
        } catch (RuntimeException e) {
            return answer(new ApiError(Errors.INVALID_REQUEST, "Invalid topology description: " + e.getMessage()));
        }
        ApiError result = g.storeDescription(req.memberId(), req.topologyEpoch(), d);
        if (result.isSuccess()) {
            descriptionBackoff.clear(g.groupId(), req.topologyEpoch());
        }
        return answer(result);
    }

    /** A StreamsGroupTopologyDescriptionUpdate answer. */
    public static StreamsGroupTopologyDescriptionUpdateResponseData answer(ApiError e) {
        return new StreamsGroupTopologyDescriptionUpdateResponseData()
                .setErrorCode(e.error().code())
                .setErrorMessage(e.isSuccess() ? null : e.messageWithFallback());
    }

    /** StreamsGroupDescribe of one group known to be a streams group. */
    public StreamsGroupDescribeResponseData.DescribedGroup describe(LiveStreamsGroup g, boolean includeDescription) {
        return g.describe(includeDescription);
    }

    /** StreamsGroupDescribe of a group id that is no streams group, as Apache answers it. */
    public static StreamsGroupDescribeResponseData.DescribedGroup notFound(String groupId, boolean otherKind) {
        return new StreamsGroupDescribeResponseData.DescribedGroup()
                .setGroupId(groupId)
                .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                .setErrorMessage(
                        otherKind
                                ? "Group " + groupId + " is not a streams group."
                                : "Group " + groupId + " not found.");
    }

    /** Broker shutdown: no session timer outlives the broker. */
    public void shutdown() {
        groups.values().forEach(LiveStreamsGroup::markDead);
    }
}
