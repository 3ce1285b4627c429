package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.share.ShareGroups;

/**
 * The one rule that a group id names one group of one type: Apache's group coordinator keeps every group in one
 * map by id and does not convert between share groups and the others, so the heartbeat of the other protocol is
 * answered GROUP_ID_NOT_FOUND ("Group g is not a share group." / "... not a consumer group.") and JoinGroup
 * INCONSISTENT_GROUP_PROTOCOL. Classic, consumer and streams groups, and groups that only committed offsets, are
 * the group coordinator's; share groups are {@link ShareGroups}'.
 */
final class GroupIdTypes {
    private final GroupCoordinator groups;
    private final ShareGroups shares;

    GroupIdTypes(GroupCoordinator groups, ShareGroups shares) {
        this.groups = groups;
        this.shares = shares;
    }

    /** Whether {@code groupId} is a share group. */
    boolean isShareGroup(String groupId) {
        return shares.isShareGroup(groupId);
    }

    /** Whether {@code groupId} is a group of another type than share (with members or with committed offsets). */
    boolean isOtherThanShare(String groupId) {
        return groups.groupIds().contains(groupId);
    }

    static String notA(String type, String groupId) {
        return "Group " + groupId + " is not a " + type + " group.";
    }
}
