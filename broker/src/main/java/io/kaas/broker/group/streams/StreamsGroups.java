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
import org.apache.kafka.common.protocol.Errors;

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
        groups.remove(g.groupId(), g);
    }

    public Map<String, LiveStreamsGroup> all() {
        return groups;
    }

    /** One heartbeat of a member of {@code g}, against the broker's topics now. */
    public StreamsHeartbeat heartbeat(
            LiveStreamsGroup g, StreamsGroupHeartbeatRequestData req, short version, String clientId, String host) {
        return g.heartbeat(req, version, clientId, host, new TopicImage(topics.get()));
    }

    /** StreamsGroupDescribe of one group known to be a streams group. */
    public StreamsGroupDescribeResponseData.DescribedGroup describe(LiveStreamsGroup g) {
        return g.describe();
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
