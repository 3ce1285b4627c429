package io.kaas.broker.group.streams;

import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.group.api.streams.StreamsGroupTopologyDescription;
import org.apache.kafka.coordinator.group.streams.StreamsGroup;
import org.apache.kafka.coordinator.group.streams.StreamsTopology;
import org.apache.kafka.coordinator.group.streams.topics.ConfiguredTopology;
import org.apache.kafka.coordinator.group.streams.topics.InternalTopicManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streams group's topology in its three forms: as its members declared it (Apache's {@link StreamsTopology}), as
 * configured against the broker's topics ({@link InternalTopicManager}: missing source topics, internal topics to
 * create, partition counts), and as described by a member's StreamsGroupTopologyDescriptionUpdate
 * ({@link StoredTopologyDescription}). Used only under its {@link LiveStreamsGroup}'s monitor.
 */
final class StreamsGroupTopology {
    private static final Logger LOG = LoggerFactory.getLogger(StreamsGroupTopology.class);

    /** Step 3's outcome: the configured topology, and whether the topics it needs changed since last time. */
    record Configured(ConfiguredTopology topology, boolean fingerprintChanged) {}

    private final String groupId;
    private final StreamsGroup group;
    /** The required topics' ids and partition counts when the topology was last configured. */
    private Map<String, String> fingerprint;
    /** The last topology description a member pushed; null until one did. */
    private StoredTopologyDescription description;

    StreamsGroupTopology(String groupId, StreamsGroup group) {
        this.groupId = groupId;
        this.group = group;
    }

    /**
     * Step 2 of a heartbeat: the group's topology, initialized by the first member's; a request of an older epoch, or
     * without one, gets the group's. An {@link IllegalArgumentException} (INVALID_REQUEST) for a topology change while
     * other members are in the group, which Apache 4.4 does not support either.
     */
    StreamsTopology resolve(String memberId, StreamsGroupHeartbeatRequestData.Topology requested) {
        Optional<StreamsTopology> current = group.topology();
        if (requested == null) {
            return current.orElseThrow(() -> new IllegalArgumentException("The group has no topology yet."));
        }
        StreamsTopology fromRequest = StreamsTopology.fromHeartbeatRequest(requested);
        if (current.isEmpty()) {
            LOG.info(
                    "streams group {}: member {} initialized the topology (epoch {})",
                    groupId,
                    memberId,
                    requested.epoch());
            group.setTopology(fromRequest);
            return fromRequest;
        }
        if (current.get().topologyEpoch() > requested.epoch() || current.get().equals(fromRequest)) {
            return current.get();
        }
        boolean othersPresent = group.members().keySet().stream().anyMatch(id -> !id.equals(memberId));
        if (othersPresent) {
            throw new IllegalArgumentException("Topology updates are not supported yet.");
        }
        // The group's last members are gone: an application restarted with a changed topology starts over.
        LOG.info("streams group {}: member {} replaced the topology (epoch {})", groupId, memberId, requested.epoch());
        group.setTopology(fromRequest);
        return fromRequest;
    }

    /**
     * Step 3 of a heartbeat: the configured topology, computed again when the topology epoch or a topic it needs
     * (ids, partition counts) changed.
     */
    Configured configure(String memberId, StreamsTopology topology, TopicImage image) {
        Map<String, String> now = image.fingerprint(topology.requiredTopics());
        Optional<ConfiguredTopology> current = group.configuredTopology();
        boolean changed = !now.equals(fingerprint);
        if (current.isPresent() && current.get().topologyEpoch() == topology.topologyEpoch() && !changed) {
            return new Configured(current.get(), false);
        }
        fingerprint = now;
        long hash = now.hashCode();
        group.setMetadataHash(hash);
        ConfiguredTopology configured =
                InternalTopicManager.configureTopics(LOG, groupId, memberId, hash, topology, image, Time.SYSTEM);
        group.setConfiguredTopology(configured);
        return new Configured(configured, changed);
    }

    /**
     * The group's topology epoch when no description of it is stored (a member is then asked for one, see
     * {@link StreamsGroups#heartbeat}); -1 when the group has no topology yet or its description is stored.
     */
    int epochWithoutDescription() {
        int epoch = currentEpoch();
        return description != null && description.topologyEpoch() == epoch ? -1 : epoch;
    }

    /**
     * StreamsGroupTopologyDescriptionUpdate from a member: kept when the member is in the group and describes the
     * group's current topology epoch (Apache's {@code validateStreamsGroupTopologyDescriptionUpdate} rules).
     */
    ApiError storeDescription(String memberId, int topologyEpoch, StreamsGroupTopologyDescription d) {
        if (!group.hasMember(memberId)) {
            return new ApiError(
                    Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group " + groupId + ".");
        }
        int current = currentEpoch();
        if (topologyEpoch != current) {
            return new ApiError(
                    Errors.INVALID_REQUEST,
                    "The topology epoch " + topologyEpoch + " of the description is not the group's topology epoch "
                            + current + ".");
        }
        description = new StoredTopologyDescription(topologyEpoch, d);
        return ApiError.NONE;
    }

    /** StreamsGroupDescribe with IncludeTopologyDescription: see {@link StoredTopologyDescription#attach}. */
    void attachDescription(StreamsGroupDescribeResponseData.DescribedGroup g) {
        StoredTopologyDescription.attach(g, description);
    }

    private int currentEpoch() {
        return group.topology().map(StreamsTopology::topologyEpoch).orElse(-1);
    }
}
