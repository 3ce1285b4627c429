package io.kaas.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.coordinator.ManualScheduler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * One classic group's join/sync state machine, its sessions and its rebalance deadline, on fake time: no broker, no
 * client, no sleep. Timeouts expire when the test moves the {@link ManualScheduler} on.
 */
class ClassicGroupTest {
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 30_000;
    /** JoinGroup v5: a new member first gets MEMBER_ID_REQUIRED and rejoins with the id it was given (KIP-394). */
    private static final short JOIN_VERSION = 5;

    private final ManualScheduler time = new ManualScheduler();
    private final ClassicGroup group = new ClassicGroup("g", time);

    private static JoinGroupRequestData joinRequest(String memberId, String protocol) {
        JoinGroupRequestData req = new JoinGroupRequestData()
                .setGroupId("g")
                .setMemberId(memberId)
                .setProtocolType("consumer")
                .setSessionTimeoutMs(SESSION_MS)
                .setRebalanceTimeoutMs(REBALANCE_MS);
        req.protocols()
                .add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                        .setName(protocol)
                        .setMetadata(protocol.getBytes(StandardCharsets.UTF_8)));
        return req;
    }

    /** A new dynamic member's first JoinGroup: the id it must rejoin with. */
    private String memberId(String clientId) {
        JoinGroupResponseData first = group.join(joinRequest("", "range"), JOIN_VERSION, clientId, "/127.0.0.1")
                .join();
        assertThat(Errors.forCode(first.errorCode())).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(first.memberId()).startsWith(clientId + "-");
        return first.memberId();
    }

    private CompletableFuture<JoinGroupResponseData> join(String memberId) {
        return group.join(joinRequest(memberId, "range"), JOIN_VERSION, "client", "/127.0.0.1");
    }

    private CompletableFuture<SyncGroupResponseData> sync(String memberId, int generation, String... assignments) {
        SyncGroupRequestData req = new SyncGroupRequestData()
                .setGroupId("g")
                .setMemberId(memberId)
                .setGenerationId(generation)
                .setProtocolType("consumer")
                .setProtocolName("range");
        for (int i = 0; i + 1 < assignments.length; i += 2) {
            req.assignments()
                    .add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                            .setMemberId(assignments[i])
                            .setAssignment(assignments[i + 1].getBytes(StandardCharsets.UTF_8)));
        }
        return group.sync(req);
    }

    /** Two members through one rebalance to Stable; returns {leader, follower}. */
    private String[] twoStableMembers() {
        String a = memberId("a");
        JoinGroupResponseData aAlone = join(a).join();
        assertThat(aAlone.generationId())
                .as("a lone member's join completes at once")
                .isEqualTo(1);
        assertThat(aAlone.leader()).isEqualTo(a);

        String b = memberId("b");
        CompletableFuture<JoinGroupResponseData> bJoin = join(b);
        assertThat(bJoin).as("b waits for a to rejoin").isNotDone();
        assertThat(group.state).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(group.heartbeat(a, null, 1)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);

        JoinGroupResponseData aJoined = join(a).join();
        JoinGroupResponseData bJoined = bJoin.join();
        assertThat(aJoined.generationId()).isEqualTo(2);
        assertThat(bJoined.generationId()).isEqualTo(2);
        assertThat(aJoined.leader()).isEqualTo(a).isEqualTo(bJoined.leader());
        assertThat(aJoined.members())
                .as("the leader learns every member's metadata")
                .extracting(JoinGroupResponseData.JoinGroupResponseMember::memberId)
                .containsExactly(a, b);
        assertThat(bJoined.members()).as("a follower learns none").isEmpty();
        assertThat(aJoined.protocolName()).isEqualTo("range");
        assertThat(group.state).isEqualTo(GroupState.COMPLETING_REBALANCE);

        CompletableFuture<SyncGroupResponseData> bSync = sync(b, 2);
        assertThat(bSync).as("a follower's sync waits for the leader's").isNotDone();
        SyncGroupResponseData aSync = sync(a, 2, a, "for-a", b, "for-b").join();
        assertThat(new String(aSync.assignment(), StandardCharsets.UTF_8)).isEqualTo("for-a");
        assertThat(new String(bSync.join().assignment(), StandardCharsets.UTF_8))
                .isEqualTo("for-b");
        assertThat(group.state).isEqualTo(GroupState.STABLE);
        return new String[] {a, b};
    }

    @Test
    void twoMembersRebalanceToAStableGeneration() {
        String[] m = twoStableMembers();
        assertThat(group.generation).isEqualTo(2);
        assertThat(group.heartbeat(m[0], null, 2)).isEqualTo(Errors.NONE);
        assertThat(group.heartbeat(m[1], null, 1)).as("a stale generation").isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(group.validateCommit(m[1], null, 2)).isEqualTo(Errors.NONE);
        assertThat(group.validateCommit(m[1], null, 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(group.validateCommit("", null, -1))
                .as("an admin commit into a group with members")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aMemberSilentForItsSessionTimeoutIsRemovedAndTheOtherRejoins() {
        String[] m = twoStableMembers();
        String a = m[0], b = m[1];
        // b heartbeats within its session, a never does.
        time.advance(Duration.ofMillis(SESSION_MS - 1));
        assertThat(group.heartbeat(b, null, 2)).isEqualTo(Errors.NONE);
        assertThat(group.members).containsOnlyKeys(a, b);
        time.advance(Duration.ofMillis(1));
        assertThat(group.members).as("a's session expired").containsOnlyKeys(b);
        assertThat(group.state).isEqualTo(GroupState.PREPARING_REBALANCE);

        assertThat(group.heartbeat(a, null, 2)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(group.heartbeat(b, null, 2)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        JoinGroupResponseData bAlone = join(b).join();
        assertThat(bAlone.generationId()).isEqualTo(3);
        assertThat(bAlone.leader()).as("the leader left; the one left leads").isEqualTo(b);
    }

    @Test
    void aMemberThatDoesNotRejoinWithinTheRebalanceTimeoutIsRemoved() {
        String[] m = twoStableMembers();
        String a = m[0], b = m[1];
        String c = memberId("c");
        CompletableFuture<JoinGroupResponseData> cJoin = join(c);
        JoinGroupResponseData aJoin = join(a).getNow(null);
        assertThat(aJoin).as("b has not rejoined yet").isNull();
        // b keeps its session alive with heartbeats but never rejoins.
        for (int waited = 0; waited + SESSION_MS / 2 < REBALANCE_MS; waited += SESSION_MS / 2) {
            time.advance(Duration.ofMillis(SESSION_MS / 2));
            assertThat(group.heartbeat(b, null, 2)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        }
        assertThat(cJoin).isNotDone();
        time.advance(Duration.ofMillis(SESSION_MS / 2));
        assertThat(cJoin.join().generationId()).as("completed without b").isEqualTo(3);
        assertThat(group.members).containsOnlyKeys(a, c);
        assertThat(group.heartbeat(b, null, 2)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aMemberThatLeavesMakesTheGroupRebalanceAndTheLastOneEmptiesIt() {
        String[] m = twoStableMembers();
        assertThat(group.leave(m[1], null)).isEqualTo(Errors.NONE);
        assertThat(group.state).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(group.leave(m[1], null)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(group.leave(m[0], null)).isEqualTo(Errors.NONE);
        assertThat(group.state).isEqualTo(GroupState.EMPTY);
        assertThat(group.protocolType).isNull();
        assertThat(group.validateCommit("", null, -1))
                .as("an admin commit into the empty group")
                .isEqualTo(Errors.NONE);
        assertThat(time.pending()).as("no timer left behind").isZero();
    }

    @Test
    void aJoinWithAProtocolNoMemberSharesIsRefused() {
        String a = memberId("a");
        join(a).join();
        JoinGroupRequestData other = joinRequest("", "roundrobin");
        assertThat(Errors.forCode(
                        group.join(other, JOIN_VERSION, "b", "/h").join().errorCode()))
                .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(Errors.forCode(group.join(joinRequest("", "range").setSessionTimeoutMs(1), JOIN_VERSION, "b", "/h")
                        .join()
                        .errorCode()))
                .isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
    }

    @Test
    void markingTheGroupDeadAnswersEveryWaiterAndStopsItsTimers() {
        String a = memberId("a");
        join(a).join();
        String b = memberId("b");
        CompletableFuture<JoinGroupResponseData> bJoin = join(b);
        group.markDead();
        assertThat(Errors.forCode(bJoin.join().errorCode())).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(group.state).isEqualTo(GroupState.DEAD);
        assertThat(time.pending()).isZero();
        assertThat(Errors.forCode(join("").join().errorCode())).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(List.copyOf(group.members.keySet())).isEmpty();
    }
}
