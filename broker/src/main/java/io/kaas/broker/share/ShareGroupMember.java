package io.kaas.broker.share;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/** One member of a share group, as its last heartbeat told it; guarded by its {@link ShareGroup}. */
final class ShareGroupMember {
    final String memberId;
    int memberEpoch;
    String rackId;
    String clientId;
    String clientHost;
    Set<String> subscribedTopicNames = Set.of();
    Map<Uuid, Set<Integer>> assignment = Map.of();
    long lastHeartbeatMs;

    ShareGroupMember(String memberId) {
        this.memberId = memberId;
    }
}
