package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The classic group protocol step by step over a raw connection: member ids, generations, fencing, session expiry. */
class GroupProtocolIT {
    private static final short JOIN_V = 9, SYNC_V = 5, HB_V = 4;

    @TempDir
    Path dir;

    TestBroker b;
    RawKafkaConnection c;

    @BeforeEach
    void start() throws Exception {
        b = new TestBroker(dir);
        c = new RawKafkaConnection(b.broker().boundPort());
    }

    @AfterEach
    void stop() throws Exception {
        c.close();
        b.close();
    }

    private JoinGroupResponseData join(String memberId, String instanceId) throws Exception {
        return c.roundTrip(
                ApiKeys.JOIN_GROUP,
                JOIN_V,
                new JoinGroupRequestData()
                        .setGroupId("raw")
                        .setMemberId(memberId)
                        .setGroupInstanceId(instanceId)
                        .setSessionTimeoutMs(6000)
                        .setRebalanceTimeoutMs(10_000)
                        .setProtocolType("consumer")
                        .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(
                                List.of(new JoinGroupRequestData.JoinGroupRequestProtocol()
                                                .setName("range")
                                                .setMetadata(new byte[] {1}))
                                        .iterator())));
    }

    private SyncGroupResponseData sync(String memberId, int generation, String instanceId, byte[] assignment)
            throws Exception {
        return c.roundTrip(
                ApiKeys.SYNC_GROUP,
                SYNC_V,
                new SyncGroupRequestData()
                        .setGroupId("raw")
                        .setMemberId(memberId)
                        .setGenerationId(generation)
                        .setGroupInstanceId(instanceId)
                        .setProtocolType("consumer")
                        .setProtocolName("range")
                        .setAssignments(List.of(new SyncGroupRequestData.SyncGroupRequestAssignment()
                                .setMemberId(memberId)
                                .setAssignment(assignment))));
    }

    private short heartbeat(String memberId, int generation, String instanceId) throws Exception {
        HeartbeatResponseData r = c.roundTrip(
                ApiKeys.HEARTBEAT,
                HB_V,
                new HeartbeatRequestData()
                        .setGroupId("raw")
                        .setMemberId(memberId)
                        .setGenerationId(generation)
                        .setGroupInstanceId(instanceId));
        return r.errorCode();
    }

    private DescribeGroupsResponseData.DescribedGroup describe() throws Exception {
        DescribeGroupsResponseData r = c.roundTrip(
                ApiKeys.DESCRIBE_GROUPS, (short) 5, new DescribeGroupsRequestData().setGroups(List.of("raw")));
        return r.groups().get(0);
    }

    @Test
    void dynamicMemberJoinsSyncsHeartbeatsAndExpires() throws Exception {
        JoinGroupResponseData first = join("", null);
        assertThat(first.errorCode()).isEqualTo(Errors.MEMBER_ID_REQUIRED.code());
        String id = first.memberId();
        JoinGroupResponseData joined = join(id, null);
        assertThat(joined.errorCode()).isZero();
        assertThat(joined.generationId()).isEqualTo(1);
        assertThat(joined.leader()).isEqualTo(id);
        assertThat(joined.members()).hasSize(1);
        SyncGroupResponseData synced = sync(id, 1, null, new byte[] {4, 2});
        assertThat(synced.errorCode()).isZero();
        assertThat(synced.assignment()).containsExactly(4, 2);
        assertThat(heartbeat(id, 1, null)).isZero();
        assertThat(heartbeat(id, 0, null)).isEqualTo(Errors.ILLEGAL_GENERATION.code());
        assertThat(heartbeat("stranger", 1, null)).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        assertThat(describe().groupState()).isEqualTo("Stable");
        assertThat(describe().members())
                .extracting(DescribeGroupsResponseData.DescribedGroupMember::memberId)
                .containsExactly(id);

        // No more heartbeats: the session (6 s) expires and the member is removed.
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> describe().groupState().equals("Empty"));
        assertThat(heartbeat(id, 1, null)).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    }

    @Test
    void restartedStaticMemberFencesItsOldIncarnation() throws Exception {
        JoinGroupResponseData a = join("", "instance-1");
        assertThat(a.errorCode()).isZero();
        assertThat(sync(a.memberId(), a.generationId(), "instance-1", new byte[] {1})
                        .errorCode())
                .isZero();
        JoinGroupResponseData again = join("", "instance-1");
        assertThat(again.errorCode()).isZero();
        assertThat(again.memberId()).isNotEqualTo(a.memberId());
        assertThat(heartbeat(a.memberId(), again.generationId(), "instance-1"))
                .isEqualTo(Errors.FENCED_INSTANCE_ID.code());
        assertThat(sync(again.memberId(), again.generationId(), "instance-1", new byte[] {2})
                        .errorCode())
                .isZero();
        assertThat(heartbeat(again.memberId(), again.generationId(), "instance-1"))
                .isZero();
    }

    /** A member parked in JoinGroup does not hold up shutdown: it is answered, and stop() returns promptly. */
    @Test
    void shutdownAnswersParkedJoins() throws Exception {
        JoinGroupResponseData a = join("", "a");
        assertThat(sync(a.memberId(), a.generationId(), "a", new byte[0]).errorCode())
                .isZero();
        try (RawKafkaConnection second = new RawKafkaConnection(b.broker().boundPort())) {
            int id = second.send(
                    ApiKeys.JOIN_GROUP,
                    JOIN_V,
                    new JoinGroupRequestData()
                            .setGroupId("raw")
                            .setMemberId("")
                            .setGroupInstanceId("b")
                            .setSessionTimeoutMs(6000)
                            .setRebalanceTimeoutMs(60_000)
                            .setProtocolType("consumer")
                            .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(
                                    List.of(new JoinGroupRequestData.JoinGroupRequestProtocol()
                                                    .setName("range")
                                                    .setMetadata(new byte[] {1}))
                                            .iterator())));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> describe().groupState().equals("PreparingRebalance"));
            long t0 = System.nanoTime();
            b.broker().stop();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            JoinGroupResponseData parked = new JoinGroupResponseData(
                    new org.apache.kafka.common.protocol.ByteBufferAccessor(
                            second.receive(ApiKeys.JOIN_GROUP, JOIN_V, id)),
                    JOIN_V);
            assertThat(parked.errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
        }
    }

    /** KIP-345: a static follower that restarts with the same subscription gets its old assignment back, no rebalance. */
    @Test
    void restartedStaticFollowerRejoinsWithoutARebalance() throws Exception {
        try (RawKafkaConnection other = new RawKafkaConnection(b.broker().boundPort())) {
            JoinGroupResponseData leader = join("", "leader");
            assertThat(sync(leader.memberId(), leader.generationId(), "leader", new byte[0])
                            .errorCode())
                    .isZero();
            // The follower joins: a rebalance to generation 2, which the leader completes by rejoining.
            int followerJoin = other.send(ApiKeys.JOIN_GROUP, JOIN_V, joinRequest("", "follower"));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> describe().groupState().equals("PreparingRebalance"));
            JoinGroupResponseData leader2 = join(leader.memberId(), "leader");
            JoinGroupResponseData follower = new JoinGroupResponseData(
                    new org.apache.kafka.common.protocol.ByteBufferAccessor(
                            other.receive(ApiKeys.JOIN_GROUP, JOIN_V, followerJoin)),
                    JOIN_V);
            assertThat(leader2.generationId()).isEqualTo(2).isEqualTo(follower.generationId());
            int followerSync = other.send(
                    ApiKeys.SYNC_GROUP,
                    SYNC_V,
                    new SyncGroupRequestData()
                            .setGroupId("raw")
                            .setMemberId(follower.memberId())
                            .setGenerationId(2)
                            .setGroupInstanceId("follower"));
            c.roundTrip(
                    ApiKeys.SYNC_GROUP,
                    SYNC_V,
                    new SyncGroupRequestData()
                            .setGroupId("raw")
                            .setMemberId(leader2.memberId())
                            .setGenerationId(2)
                            .setGroupInstanceId("leader")
                            .setAssignments(List.of(new SyncGroupRequestData.SyncGroupRequestAssignment()
                                    .setMemberId(follower.memberId())
                                    .setAssignment(new byte[] {7}))));
            other.receive(ApiKeys.SYNC_GROUP, SYNC_V, followerSync);

            JoinGroupResponseData restarted = join("", "follower");
            assertThat(restarted.errorCode()).isZero();
            assertThat(restarted.generationId()).isEqualTo(2);
            assertThat(restarted.memberId()).isNotEqualTo(follower.memberId());
            assertThat(describe().groupState()).isEqualTo("Stable");
            assertThat(sync(restarted.memberId(), 2, "follower", new byte[0]).assignment())
                    .containsExactly(7);
            assertThat(heartbeat(follower.memberId(), 2, "follower")).isEqualTo(Errors.FENCED_INSTANCE_ID.code());
            assertThat(heartbeat(leader2.memberId(), 2, "leader")).isZero();
        }
    }

    private static JoinGroupRequestData joinRequest(String memberId, String instanceId) {
        return new JoinGroupRequestData()
                .setGroupId("raw")
                .setMemberId(memberId)
                .setGroupInstanceId(instanceId)
                .setSessionTimeoutMs(6000)
                .setRebalanceTimeoutMs(10_000)
                .setProtocolType("consumer")
                .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(
                        List.of(new JoinGroupRequestData.JoinGroupRequestProtocol()
                                        .setName("range")
                                        .setMetadata(new byte[] {1}))
                                .iterator()));
    }
}
