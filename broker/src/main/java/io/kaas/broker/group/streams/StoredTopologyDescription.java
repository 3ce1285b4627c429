package io.kaas.broker.group.streams;

import org.apache.kafka.clients.admin.StreamsGroupTopologyDescriptionStatus;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.coordinator.group.api.streams.StreamsGroupTopologyDescription;
import org.apache.kafka.coordinator.group.streams.StreamsGroupTopologyDescriptionConverter;

/**
 * The topology description (processors, stores, sources and sinks by name) a member of a streams group pushed with
 * StreamsGroupTopologyDescriptionUpdate, for the topology epoch it describes. Apache 4.4 hands such pushes to a
 * configured plug-in ({@code StreamsGroupTopologyDescriptionPlugin}) and answers UNSUPPORTED_VERSION without one;
 * kaas keeps the latest one itself, beside the group, so {@code Admin.describeStreamsGroups} with
 * {@code includeTopologyDescription} shows it with no plug-in to run. Held in memory like the rest of a streams
 * group: after a restart the broker asks the group's members for it again.
 */
record StoredTopologyDescription(int topologyEpoch, StreamsGroupTopologyDescription description) {
    /**
     * StreamsGroupDescribe with {@code IncludeTopologyDescription}, as Apache's {@code attachTopologyDescriptions}:
     * AVAILABLE with the description when one is stored for the group's current topology epoch, else NOT_STORED.
     */
    static void attach(StreamsGroupDescribeResponseData.DescribedGroup g, StoredTopologyDescription stored) {
        boolean current = stored != null && g.topology() != null && g.topology().epoch() == stored.topologyEpoch();
        if (current) {
            g.setTopologyDescription(StreamsGroupTopologyDescriptionConverter.toDescribeResponse(stored.description()));
            g.setTopologyDescriptionStatus(StreamsGroupTopologyDescriptionStatus.AVAILABLE.id());
        } else {
            g.setTopologyDescriptionStatus(StreamsGroupTopologyDescriptionStatus.NOT_STORED.id());
        }
    }
}
