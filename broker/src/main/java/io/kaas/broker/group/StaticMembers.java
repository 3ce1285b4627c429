package io.kaas.broker.group;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/**
 * A classic group's static members (KIP-345): which member id each {@code group.instance.id} is now. A restarted
 * instance takes its identity over and the old member id is fenced (FENCED_INSTANCE_ID), so two incarnations of one
 * instance never both act in the group. Called under the group's monitor.
 */
final class StaticMembers {
    private final Map<String, String> memberIds = new HashMap<>();

    /** The member id {@code instanceId} is now, or null. */
    String memberOf(String instanceId) {
        return memberIds.get(instanceId);
    }

    void bind(Member m) {
        if (m.groupInstanceId != null) {
            memberIds.put(m.groupInstanceId, m.memberId);
        }
    }

    /** {@code m} is gone: its instance id is free again, unless a newer incarnation already holds it. */
    void unbind(Member m) {
        if (m.groupInstanceId != null && m.memberId.equals(memberIds.get(m.groupInstanceId))) {
            memberIds.remove(m.groupInstanceId);
        }
    }

    /**
     * Whether a request from {@code memberId} ({@code known}: a member of the group) naming {@code instanceId} is from
     * the instance's current incarnation: NONE, FENCED_INSTANCE_ID for an older one, UNKNOWN_MEMBER_ID for no member.
     */
    Errors check(String memberId, String instanceId, boolean known) {
        if (!known) {
            return instanceId != null && memberIds.containsKey(instanceId)
                    ? Errors.FENCED_INSTANCE_ID
                    : Errors.UNKNOWN_MEMBER_ID;
        }
        return instanceId != null && !memberId.equals(memberIds.get(instanceId))
                ? Errors.FENCED_INSTANCE_ID
                : Errors.NONE;
    }
}
