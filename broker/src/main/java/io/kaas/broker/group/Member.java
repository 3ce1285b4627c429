package io.kaas.broker.group;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/** One member of a classic group. Mutated only under its group's monitor. */
final class Member {
    final String memberId;
    final String groupInstanceId;
    final String clientId;
    final String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    /** Protocol name → metadata, in the member's order of preference. */
    Map<String, byte[]> protocols = new LinkedHashMap<>();

    byte[] assignment = new byte[0];
    /** Set while the member waits in JoinGroup for the rebalance to complete. */
    CompletableFuture<JoinGroupResponseData> pendingJoin;
    /** Set while the member waits in SyncGroup for the leader's assignment. */
    CompletableFuture<SyncGroupResponseData> pendingSync;
    /** Fires when the member has not been heard from within its session timeout. */
    ScheduledFuture<?> sessionExpiry;

    Member(String memberId, String groupInstanceId, String clientId, String clientHost) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
    }
}
