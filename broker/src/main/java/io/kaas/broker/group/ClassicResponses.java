package io.kaas.broker.group;

import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/** The JoinGroup and SyncGroup answers of a classic group, as Apache's fields are set for each case. */
final class ClassicResponses {
    private ClassicResponses() {}

    static CompletableFuture<JoinGroupResponseData> joinError(Errors e, String memberId) {
        return CompletableFuture.completedFuture(joinFailed(e, memberId));
    }

    static JoinGroupResponseData joinFailed(Errors e, String memberId) {
        return new JoinGroupResponseData()
                .setErrorCode(e.code())
                .setGenerationId(-1)
                .setMemberId(memberId)
                .setLeader("")
                .setProtocolName(null);
    }

    /** A member's answer when the join completes; the leader's lists every member with its protocol's metadata. */
    static JoinGroupResponseData joined(
            Member m,
            int generation,
            String protocolType,
            String protocolName,
            String leaderId,
            Collection<Member> members) {
        JoinGroupResponseData r = new JoinGroupResponseData()
                .setGenerationId(generation)
                .setProtocolType(protocolType)
                .setProtocolName(protocolName)
                .setLeader(leaderId)
                .setMemberId(m.memberId);
        if (m.memberId.equals(leaderId)) {
            for (Member other : members) {
                r.members()
                        .add(new JoinGroupResponseData.JoinGroupResponseMember()
                                .setMemberId(other.memberId)
                                .setGroupInstanceId(other.groupInstanceId)
                                .setMetadata(other.protocols.get(protocolName)));
            }
        }
        return r;
    }

    static SyncGroupResponseData sync(Errors e, byte[] assignment, String protocolType, String protocolName) {
        return new SyncGroupResponseData()
                .setErrorCode(e.code())
                .setAssignment(assignment)
                .setProtocolType(protocolType)
                .setProtocolName(protocolName);
    }
}
