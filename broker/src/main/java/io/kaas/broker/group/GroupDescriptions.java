package io.kaas.broker.group;

import io.kaas.broker.coordinator.SlotOwnership;
import io.kaas.broker.group.streams.LiveStreamsGroup;
import io.kaas.broker.group.streams.StreamsGroups;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * What ListGroups, DescribeGroups and ConsumerGroupDescribe report of the groups this broker coordinates, as Apache
 * 4.x reports them: a group known only by its committed offsets is an Empty classic group with no protocol;
 * DescribeGroups describes classic groups only, ConsumerGroupDescribe consumer groups only. Reads only: each group is
 * read under its monitor, and offsets without any lock (a commit holds a group's monitor across an fsync, and a
 * describe must not wait on a disk).
 */
final class GroupDescriptions {
    private final LiveGroups groups;
    private final OffsetStore offsets;
    private final SlotOwnership slots;

    GroupDescriptions(LiveGroups groups, OffsetStore offsets, SlotOwnership slots) {
        this.groups = groups;
        this.offsets = offsets;
        this.slots = slots;
    }

    /** Group ids known through membership or committed offsets. */
    Set<String> groupIds() {
        Set<String> ids = new TreeSet<>(offsets.groups());
        ids.addAll(groups.ids());
        return ids;
    }

    /** ListGroups: the groups this broker coordinates (those of its slots), as each Apache broker answers. */
    List<GroupCoordinator.Listing> list() {
        List<GroupCoordinator.Listing> out = new ArrayList<>();
        for (String id : groupIds()) {
            if (!slots.activeFor(id)) {
                continue;
            }
            Optional<ClassicGroup> g = groups.classic(id);
            Optional<ConsumerGroup> consumer = groups.consumer(id);
            Optional<LiveStreamsGroup> streams = groups.streams(id);
            if (streams.isPresent()) {
                out.add(new GroupCoordinator.Listing(
                        id, "streams", streams.get().stateName(), "streams"));
            } else if (consumer.isPresent()) {
                out.add(new GroupCoordinator.Listing(
                        id, "consumer", consumer.get().stateName(), "consumer"));
            } else if (g.isEmpty()) {
                out.add(new GroupCoordinator.Listing(id, "", GroupState.EMPTY.wireName(), "classic"));
            } else {
                ClassicGroup c = g.get();
                synchronized (c) {
                    out.add(new GroupCoordinator.Listing(
                            id, c.protocolType == null ? "" : c.protocolType, c.state.wireName(), "classic"));
                }
            }
        }
        return out;
    }

    /** DescribeGroups for one group; empty when the group is unknown. */
    Optional<DescribeGroupsResponseData.DescribedGroup> describe(String groupId) {
        if (!slots.activeFor(groupId)) {
            return Optional.of(emptyDescription(groupId, "").setErrorCode(Errors.NOT_COORDINATOR.code()));
        }
        if (groups.consumer(groupId).isPresent() || groups.streams(groupId).isPresent()) {
            // As Apache 4.x: DescribeGroups describes classic groups only; ConsumerGroupDescribe and
            // StreamsGroupDescribe the others.
            return Optional.of(emptyDescription(groupId, "Dead")
                    .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                    .setErrorMessage("Group " + groupId + " is not a classic group."));
        }
        Optional<ClassicGroup> found = groups.classic(groupId);
        if (found.isEmpty()) {
            return offsets.groups().contains(groupId)
                    ? Optional.of(emptyDescription(groupId, GroupState.EMPTY.wireName()))
                    : Optional.empty();
        }
        ClassicGroup g = found.get();
        synchronized (g) {
            if (g.state == GroupState.DEAD) {
                return Optional.empty();
            }
            boolean stable = g.state == GroupState.STABLE;
            DescribeGroupsResponseData.DescribedGroup d = new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(groupId)
                    .setGroupState(g.state.wireName())
                    .setProtocolType(g.protocolType == null ? "" : g.protocolType)
                    .setProtocolData(stable && g.protocolName != null ? g.protocolName : "");
            for (Member m : g.members.values()) {
                d.members()
                        .add(new DescribeGroupsResponseData.DescribedGroupMember()
                                .setMemberId(m.memberId)
                                .setGroupInstanceId(m.groupInstanceId)
                                .setClientId(m.clientId)
                                .setClientHost(m.clientHost)
                                .setMemberMetadata(
                                        stable && g.protocolName != null
                                                ? m.protocols.getOrDefault(g.protocolName, new byte[0])
                                                : new byte[0])
                                .setMemberAssignment(stable ? m.assignment : new byte[0]));
            }
            return Optional.of(d);
        }
    }

    private static DescribeGroupsResponseData.DescribedGroup emptyDescription(String groupId, String state) {
        return new DescribeGroupsResponseData.DescribedGroup()
                .setGroupId(groupId)
                .setGroupState(state)
                .setProtocolType("")
                .setProtocolData("");
    }

    /** ConsumerGroupDescribe for one group: GROUP_ID_NOT_FOUND for unknown and classic groups, as Apache. */
    ConsumerGroupDescribeResponseData.DescribedGroup consumerDescribe(String groupId, short version) {
        if (!slots.activeFor(groupId)) {
            return new ConsumerGroupDescribeResponseData.DescribedGroup()
                    .setGroupId(groupId)
                    .setErrorCode(Errors.NOT_COORDINATOR.code());
        }
        Optional<ConsumerGroup> g = groups.consumer(groupId);
        if (g.isPresent()) {
            return groups.consumerGroups().describe(g.get(), version);
        }
        boolean classic = groups.classic(groupId).isPresent()
                || groups.streams(groupId).isPresent()
                || offsets.groups().contains(groupId);
        return new ConsumerGroupDescribeResponseData.DescribedGroup()
                .setGroupId(groupId)
                .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                .setErrorMessage(
                        classic
                                ? "Group " + groupId + " is not a consumer group."
                                : "Group " + groupId + " not found.");
    }

    /** StreamsGroupDescribe for one group: GROUP_ID_NOT_FOUND for unknown groups and groups of another kind. */
    StreamsGroupDescribeResponseData.DescribedGroup streamsDescribe(String groupId, boolean includeDescription) {
        if (!slots.activeFor(groupId)) {
            return new StreamsGroupDescribeResponseData.DescribedGroup()
                    .setGroupId(groupId)
                    .setErrorCode(Errors.NOT_COORDINATOR.code());
        }
        Optional<LiveStreamsGroup> g = groups.streams(groupId);
        if (g.isPresent()) {
            return groups.streamsGroups().describe(g.get(), includeDescription);
        }
        boolean otherKind = groups.classic(groupId).isPresent()
                || groups.consumer(groupId).isPresent()
                || offsets.groups().contains(groupId);
        return StreamsGroups.notFound(groupId, otherKind);
    }
}
