package io.kaas.broker.group;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
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

    /** The session and rebalance timeouts a JoinGroup asks for (no rebalance timeout: the session's, as JoinGroup v0). */
    void timeoutsOf(JoinGroupRequestData req) {
        sessionTimeoutMs = req.sessionTimeoutMs();
        rebalanceTimeoutMs = req.rebalanceTimeoutMs() > 0 ? req.rebalanceTimeoutMs() : req.sessionTimeoutMs();
    }

    /** The protocols a JoinGroup names, with their metadata, in the member's order of preference. */
    static Map<String, byte[]> protocolsOf(JoinGroupRequestData req) {
        Map<String, byte[]> protocols = new LinkedHashMap<>();
        req.protocols().forEach(p -> protocols.put(p.name(), p.metadata()));
        return protocols;
    }

    Member(String memberId, String groupInstanceId, String clientId, String clientHost) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
    }
}
