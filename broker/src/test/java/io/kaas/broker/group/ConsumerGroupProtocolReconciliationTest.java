package io.kaas.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** KIP-848 step by step against the coordinator: epochs, revoke-before-assign, fencing, offsets, kinds. */
class ConsumerGroupProtocolReconciliationTest {
    private static final short VERSION = 1;
    private static final UUID TOPIC_ID = UUID.randomUUID();
    private static final Uuid TOPIC = ConsumerGroupMember.uuid(TOPIC_ID);

    @TempDir
    Path dir;

    ScheduledExecutorService timer;
    GroupCoordinator groups;

    @BeforeEach
    void start() {
        timer = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "test-group-timer"));
        groups = coordinator(ConsumerGroupConfig.defaults());
    }

    @AfterEach
    void stop() {
        groups.shutdown();
        timer.shutdownNow();
    }

    private GroupCoordinator coordinator(ConsumerGroupConfig config) {
        return new GroupCoordinator(
                dir, timer, config, () -> Map.of("t", new TopicInfo("t", TOPIC_ID, 4, TopicConfig.EMPTY)));
    }

    @Test
    void partitionsMoveOnlyOnceTheirOwnerReportsThemReleased() {
        ConsumerGroupHeartbeatResponseData a = heartbeat(join("g", "a"));
        assertThat(a.errorCode()).isZero();
        assertThat(a.memberEpoch()).isEqualTo(1);
        assertThat(partitions(a)).containsExactly(0, 1, 2, 3);

        ConsumerGroupHeartbeatResponseData b = heartbeat(join("g", "b"));
        assertThat(b.memberEpoch())
                .as("b is at the new target epoch, waiting for a's partitions")
                .isEqualTo(2);
        assertThat(partitions(b)).isEmpty();

        ConsumerGroupHeartbeatResponseData aRevoking = heartbeat(stay("g", "a", 1, null));
        assertThat(aRevoking.memberEpoch())
                .as("a keeps its epoch until it has revoked")
                .isEqualTo(1);
        Set<Integer> aKeeps = partitions(aRevoking);
        assertThat(aKeeps).hasSize(2);
        assertThat(partitions(heartbeat(stay("g", "b", 2, List.of()))))
                .as("still owned by a")
                .isEmpty();

        assertThat(groups.commit("g", "a", null, 2, List.of())).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(groups.commit("g", "a", null, 1, List.of())).isEqualTo(Errors.NONE);
        assertThat(groups.commit("g", "nobody", null, 1, List.of())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(groups.commit("g", "", null, -1, List.of()))
                .as("admin commit into a live group")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);

        ConsumerGroupHeartbeatResponseData aDone = heartbeat(stay("g", "a", 1, aKeeps));
        assertThat(aDone.memberEpoch()).isEqualTo(2);
        ConsumerGroupHeartbeatResponseData bGets = heartbeat(stay("g", "b", 2, List.of()));
        Set<Integer> expectedB = new TreeSet<>(Set.of(0, 1, 2, 3));
        expectedB.removeAll(aKeeps);
        assertThat(partitions(bGets)).isEqualTo(expectedB);
        assertThat(groups.consumerDescribe("g", VERSION).groupState()).isEqualTo("Stable");

        assertThat(heartbeat(stay("g", "b", 7, null)).errorCode()).isEqualTo(Errors.FENCED_MEMBER_EPOCH.code());
        assertThat(heartbeat(stay("g", "zed", 2, null)).errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        assertThat(groups.validateOffsetFetch("g", "b", 1)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(groups.validateOffsetFetch("g", "b", 2)).isEqualTo(Errors.NONE);

        assertThat(heartbeat(stay("g", "b", ConsumerGroup.LEAVE_EPOCH, null)).memberEpoch())
                .isEqualTo(-1);
        ConsumerGroupHeartbeatResponseData aAll = heartbeat(stay("g", "a", 2, aKeeps));
        assertThat(aAll.memberEpoch()).isEqualTo(3);
        assertThat(partitions(aAll)).containsExactly(0, 1, 2, 3);
    }

    @Test
    void classicAndConsumerGroupsKeepTheirKind() throws Exception {
        heartbeat(join("new", "a"));
        JoinGroupRequestData classicJoin = new JoinGroupRequestData()
                .setGroupId("new")
                .setMemberId("")
                .setProtocolType("consumer")
                .setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(10_000);
        classicJoin
                .protocols()
                .add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                        .setName("range")
                        .setMetadata(new byte[0]));
        assertThat(groups.join(classicJoin, (short) 3, "c", "/h").get().errorCode())
                .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL.code());

        JoinGroupRequestData oldJoin = classicJoin.duplicate().setGroupId("old");
        assertThat(groups.join(oldJoin, (short) 3, "c", "/h").get().errorCode()).isZero();
        assertThat(heartbeat(join("old", "x")).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());

        assertThat(groups.list())
                .extracting(GroupCoordinator.Listing::groupId, GroupCoordinator.Listing::type)
                .contains(
                        org.assertj.core.groups.Tuple.tuple("new", "consumer"),
                        org.assertj.core.groups.Tuple.tuple("old", "classic"));
        assertThat(groups.describe("new").orElseThrow().errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(groups.consumerDescribe("old", VERSION).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(groups.consumerDescribe("nothing", VERSION).errorMessage()).isEqualTo("Group nothing not found.");

        // An empty consumer group becomes classic when a classic member joins.
        heartbeat(stay("new", "a", ConsumerGroup.LEAVE_EPOCH, null));
        assertThat(groups.join(classicJoin, (short) 3, "c", "/h").get().errorCode())
                .isZero();
    }

    @Test
    void rangeAssignorOnRequestUnknownAssignorRefusedAndSilentMembersExpire() {
        groups.shutdown();
        groups = coordinator(ConsumerGroupConfig.defaults().withTimeouts(50, 2_000));
        ConsumerGroupHeartbeatResponseData a = heartbeat(join("g", "a").setServerAssignor("range"));
        assertThat(a.heartbeatIntervalMs()).isEqualTo(50);
        ConsumerGroupDescribeResponseData.DescribedGroup d = groups.consumerDescribe("g", VERSION);
        assertThat(d.assignorName()).isEqualTo("range");
        assertThat(d.members()).singleElement().satisfies(m -> {
            assertThat(m.memberType()).isEqualTo((byte) 1);
            assertThat(m.assignment().topicPartitions())
                    .singleElement()
                    .satisfies(tp -> assertThat(tp.topicName()).isEqualTo("t"));
        });
        assertThat(heartbeat(join("g", "b").setServerAssignor("sticky")).errorCode())
                .isEqualTo(Errors.UNSUPPORTED_ASSIGNOR.code());
        assertThat(heartbeat(join("g", "c").setMemberId("")).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> groups.consumerDescribe("g", VERSION).groupState().equals("Empty"));
    }

    @Test
    void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsFenced() {
        heartbeat(join("g", "slow").setRebalanceTimeoutMs(200));
        heartbeat(join("g", "b"));
        assertThat(partitions(heartbeat(stay("g", "slow", 1, null)))).hasSize(2);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> heartbeat(stay("g", "slow", 1, null)).errorCode() == Errors.UNKNOWN_MEMBER_ID.code());
        ConsumerGroupHeartbeatResponseData b = heartbeat(stay("g", "b", 2, List.of()));
        assertThat(b.memberEpoch()).isEqualTo(3);
        assertThat(partitions(b)).containsExactly(0, 1, 2, 3);
    }

    @Test
    void aStaticMemberLeavingForNowTakesItsAssignmentBackWithoutARebalance() {
        heartbeat(join("g", "a1").setInstanceId("a"));
        heartbeat(join("g", "b").setInstanceId("b"));
        Set<Integer> aOwns = partitions(heartbeat(stay("g", "a1", 1, null)));
        heartbeat(stay("g", "a1", 1, aOwns));
        ConsumerGroupHeartbeatResponseData before = heartbeat(stay("g", "a1", 2, aOwns));
        assertThat(heartbeat(join("g", "a2").setInstanceId("a")).errorCode())
                .as("a1 is still active")
                .isEqualTo(Errors.UNRELEASED_INSTANCE_ID.code());

        assertThat(heartbeat(stay("g", "a1", ConsumerGroup.STATIC_LEAVE_EPOCH, null)
                                .setInstanceId("a"))
                        .memberEpoch())
                .isEqualTo(ConsumerGroup.STATIC_LEAVE_EPOCH);
        ConsumerGroupHeartbeatResponseData back = heartbeat(join("g", "a2").setInstanceId("a"));
        assertThat(back.errorCode()).isZero();
        assertThat(back.memberEpoch()).isEqualTo(before.memberEpoch());
        assertThat(partitions(back)).isEqualTo(aOwns);
        assertThat(groups.consumerDescribe("g", VERSION).groupEpoch())
                .as("no rebalance")
                .isEqualTo(2);
    }

    @Test
    void afterARestartMembersRejoinAndTheirOffsetsAreStillThere() {
        heartbeat(join("g", "a"));
        assertThat(groups.commit("g", "a", null, 1, List.of(new GroupOffsetsFile.Committed("t", 0, 42, -1, "", 0))))
                .isEqualTo(Errors.NONE);
        groups.shutdown();
        groups = coordinator(ConsumerGroupConfig.defaults());

        assertThat(heartbeat(stay("g", "a", 1, List.of(0, 1, 2, 3))).errorCode())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        assertThat(groups.committed("g")).containsKey(new OffsetStore.PartitionKey("t", 0));
        ConsumerGroupHeartbeatResponseData again = heartbeat(join("g", "a"));
        assertThat(again.memberEpoch()).isEqualTo(1);
        assertThat(partitions(again)).containsExactly(0, 1, 2, 3);
        assertThat(groups.committed("g")
                        .get(new OffsetStore.PartitionKey("t", 0))
                        .offset())
                .isEqualTo(42);
    }

    private ConsumerGroupHeartbeatResponseData heartbeat(ConsumerGroupHeartbeatRequestData req) {
        return groups.consumerHeartbeat(req, VERSION, "client", "/127.0.0.1");
    }

    private static ConsumerGroupHeartbeatRequestData join(String group, String member) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(member)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(30_000)
                .setSubscribedTopicNames(List.of("t"))
                .setTopicPartitions(new ArrayList<>());
    }

    private static ConsumerGroupHeartbeatRequestData stay(
            String group, String member, int epoch, Iterable<Integer> owned) {
        ConsumerGroupHeartbeatRequestData r = new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(member)
                .setMemberEpoch(epoch)
                .setRebalanceTimeoutMs(-1)
                .setSubscribedTopicNames(null)
                .setTopicPartitions(null);
        if (owned != null) {
            List<Integer> ps = new ArrayList<>();
            owned.forEach(ps::add);
            r.setTopicPartitions(List.of(new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                    .setTopicId(TOPIC)
                    .setPartitions(ps)));
        }
        return r;
    }

    private static Set<Integer> partitions(ConsumerGroupHeartbeatResponseData r) {
        Set<Integer> out = new TreeSet<>();
        if (r.assignment() != null) {
            r.assignment().topicPartitions().forEach(tp -> out.addAll(tp.partitions()));
        }
        return out;
    }
}
