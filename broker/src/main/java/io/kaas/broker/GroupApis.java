package io.kaas.broker;

import io.kaas.broker.api.AlterShareGroupOffsetsHandler;
import io.kaas.broker.api.ConsumerGroupDescribeHandler;
import io.kaas.broker.api.ConsumerGroupHeartbeatHandler;
import io.kaas.broker.api.DeleteGroupsHandler;
import io.kaas.broker.api.DeleteShareGroupOffsetsHandler;
import io.kaas.broker.api.DescribeGroupsHandler;
import io.kaas.broker.api.DescribeShareGroupOffsetsHandler;
import io.kaas.broker.api.HeartbeatHandler;
import io.kaas.broker.api.JoinGroupHandler;
import io.kaas.broker.api.LeaveGroupHandler;
import io.kaas.broker.api.ListGroupsHandler;
import io.kaas.broker.api.OffsetCommitHandler;
import io.kaas.broker.api.OffsetDeleteHandler;
import io.kaas.broker.api.OffsetFetchHandler;
import io.kaas.broker.api.ShareAcknowledgeHandler;
import io.kaas.broker.api.ShareFetchHandler;
import io.kaas.broker.api.ShareGroupDescribeHandler;
import io.kaas.broker.api.ShareGroupHeartbeatHandler;
import io.kaas.broker.api.StreamsGroupDescribeHandler;
import io.kaas.broker.api.StreamsGroupHeartbeatHandler;
import io.kaas.broker.api.StreamsGroupTopologyDescriptionUpdateHandler;
import io.kaas.broker.api.SyncGroupHandler;
import io.kaas.broker.share.ShareFetches;
import io.kaas.broker.share.ShareGroupOffsets;
import io.kaas.protocol.RequestInvoker;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The group APIs: classic (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), consumer (KIP-848), streams (KIP-1071) and
 * share groups (KIP-932), their offsets, listing, describing and deleting groups.
 */
final class GroupApis {
    private GroupApis() {}

    /** Registers them on {@code invoker}: share groups, then classic, consumer and streams groups and their offsets. */
    static void register(RequestInvoker invoker, ApiHandlers.Parts p) {
        shareGroups(invoker, p);
        invoker.register(
                ApiKeys.JOIN_GROUP, ApiKeys.JOIN_GROUP.latestVersion(), new JoinGroupHandler(p.groups(), p.shares()));
        invoker.register(ApiKeys.SYNC_GROUP, ApiKeys.SYNC_GROUP.latestVersion(), new SyncGroupHandler(p.groups()));
        invoker.register(ApiKeys.HEARTBEAT, ApiKeys.HEARTBEAT.latestVersion(), new HeartbeatHandler(p.groups()));
        invoker.register(ApiKeys.LEAVE_GROUP, ApiKeys.LEAVE_GROUP.latestVersion(), new LeaveGroupHandler(p.groups()));
        invoker.register(
                ApiKeys.OFFSET_COMMIT,
                OffsetCommitHandler.MAX_VERSION,
                new OffsetCommitHandler(p.groups(), p.topics(), p.shares()));
        invoker.register(
                ApiKeys.OFFSET_FETCH, OffsetFetchHandler.MAX_VERSION, new OffsetFetchHandler(p.groups(), p.topics()));
        invoker.register(
                ApiKeys.LIST_GROUPS,
                ApiKeys.LIST_GROUPS.latestVersion(),
                new ListGroupsHandler(p.groups(), p.shares()));
        invoker.register(
                ApiKeys.DESCRIBE_GROUPS,
                ApiKeys.DESCRIBE_GROUPS.latestVersion(),
                new DescribeGroupsHandler(p.groups(), p.shares()));
        invoker.register(
                ApiKeys.DELETE_GROUPS,
                ApiKeys.DELETE_GROUPS.latestVersion(),
                new DeleteGroupsHandler(p.groups(), p.shares()));
        invoker.register(
                ApiKeys.OFFSET_DELETE, ApiKeys.OFFSET_DELETE.latestVersion(), new OffsetDeleteHandler(p.groups()));
        invoker.register(
                ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                ApiKeys.CONSUMER_GROUP_HEARTBEAT.latestVersion(),
                new ConsumerGroupHeartbeatHandler(p.groups(), p.shares()));
        invoker.register(
                ApiKeys.CONSUMER_GROUP_DESCRIBE,
                ApiKeys.CONSUMER_GROUP_DESCRIBE.latestVersion(),
                new ConsumerGroupDescribeHandler(p.groups(), p.shares()));
        invoker.register(
                ApiKeys.STREAMS_GROUP_HEARTBEAT,
                ApiKeys.STREAMS_GROUP_HEARTBEAT.latestVersion(),
                new StreamsGroupHeartbeatHandler(p.groups(), p.topics(), p.shares()));
        invoker.register(
                ApiKeys.STREAMS_GROUP_DESCRIBE,
                ApiKeys.STREAMS_GROUP_DESCRIBE.latestVersion(),
                new StreamsGroupDescribeHandler(p.groups()));
        invoker.register(
                ApiKeys.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE,
                ApiKeys.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE.latestVersion(),
                new StreamsGroupTopologyDescriptionUpdateHandler(p.groups()));
    }

    /** Share groups (KIP-932): heartbeat, describe, fetch, acknowledge and the share-group offset APIs. */
    private static void shareGroups(RequestInvoker invoker, ApiHandlers.Parts p) {
        ShareFetches fetches = new ShareFetches(p.shares(), p.topics());
        invoker.register(
                ApiKeys.SHARE_GROUP_HEARTBEAT,
                ApiKeys.SHARE_GROUP_HEARTBEAT.latestVersion(),
                new ShareGroupHeartbeatHandler(p.shares(), p.groups()));
        invoker.register(
                ApiKeys.SHARE_GROUP_DESCRIBE,
                ApiKeys.SHARE_GROUP_DESCRIBE.latestVersion(),
                new ShareGroupDescribeHandler(p.shares(), p.groups()));
        invoker.register(
                ApiKeys.SHARE_FETCH,
                ApiKeys.SHARE_FETCH.latestVersion(),
                new ShareFetchHandler(fetches, p.timer(), p.handlerPool()));
        invoker.register(
                ApiKeys.SHARE_ACKNOWLEDGE,
                ApiKeys.SHARE_ACKNOWLEDGE.latestVersion(),
                new ShareAcknowledgeHandler(fetches));
        ShareGroupOffsets offsets = new ShareGroupOffsets(p.shares(), p.topics());
        invoker.register(
                ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS,
                ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS.latestVersion(),
                new DescribeShareGroupOffsetsHandler(offsets, p.topics()));
        invoker.register(
                ApiKeys.ALTER_SHARE_GROUP_OFFSETS,
                ApiKeys.ALTER_SHARE_GROUP_OFFSETS.latestVersion(),
                new AlterShareGroupOffsetsHandler(offsets, p.topics()));
        invoker.register(
                ApiKeys.DELETE_SHARE_GROUP_OFFSETS,
                ApiKeys.DELETE_SHARE_GROUP_OFFSETS.latestVersion(),
                new DeleteShareGroupOffsetsHandler(offsets, p.topics()));
    }
}
