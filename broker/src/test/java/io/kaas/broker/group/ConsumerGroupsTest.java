package io.kaas.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.coordinator.ManualScheduler;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-848 consumer groups on fake time, no broker: the group epoch, each member's epoch as it reconciles toward the
 * target assignment (revoke first, then be given what another member released), the epoch rules, and the session
 * and revocation deadlines.
 */
class ConsumerGroupsTest {
    private static final int SESSION_MS = 45_000;
    private static final int REBALANCE_MS = 60_000;
    private static final short VERSION = 1;

    private final ManualScheduler time = new ManualScheduler();
    private final TopicInfo topic = new TopicInfo("t", UUID.randomUUID(), 4, TopicConfig.EMPTY);
    private final Uuid topicId = ConsumerGroupMember.uuid(topic.topicId());
    private final ConsumerGroupConfig broker = ConsumerGroupConfig.defaults().withTimeouts(5_000, SESSION_MS);
    private GroupConfigs configs;
    private ConsumerGroups groups;

    @BeforeEach
    void groupsWithTheirConfigsFile(@TempDir Path dir) {
        configs = new GroupConfigs(dir.resolve("group-configs.json"), new ApacheGroupConfigs(broker));
        groups = new ConsumerGroups(time, broker, id -> configs.consumer(id, broker), () -> Map.of("t", topic));
    }

    private ConsumerGroupHeartbeatResponseData joining(String memberId) {
        ConsumerGroupHeartbeatRequestData req = new ConsumerGroupHeartbeatRequestData()
                .setGroupId("g")
                .setMemberId(memberId)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(REBALANCE_MS)
                .setSubscribedTopicNames(List.of("t"))
                .setTopicPartitions(List.of());
        assertThat(groups.invalid(req, VERSION)).isEmpty();
        return groups.getOrCreate("g").heartbeat(req, "client-" + memberId, "/127.0.0.1");
    }

    /** A heartbeat at {@code epoch} reporting that the member owns {@code owned} (null: not reported). */
    private ConsumerGroupHeartbeatResponseData heartbeat(String memberId, int epoch, Set<Integer> owned) {
        ConsumerGroupHeartbeatRequestData req = new ConsumerGroupHeartbeatRequestData()
                .setGroupId("g")
                .setMemberId(memberId)
                .setMemberEpoch(epoch);
        if (owned != null) {
            req.setTopicPartitions(List.of(new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                    .setTopicId(topicId)
                    .setPartitions(new ArrayList<>(owned))));
        }
        assertThat(groups.invalid(req, VERSION)).isEmpty();
        return groups.getOrCreate("g").heartbeat(req, "client-" + memberId, "/127.0.0.1");
    }

    private static Set<Integer> partitions(ConsumerGroupHeartbeatResponseData r) {
        Set<Integer> out = new HashSet<>();
        r.assignment().topicPartitions().forEach(tp -> out.addAll(tp.partitions()));
        return out;
    }

    private ConsumerGroup group() {
        return groups.get("g").orElseThrow();
    }

    @Test
    void aSecondMemberGetsPartitionsOnlyOnceTheFirstRevokedThem() {
        ConsumerGroupHeartbeatResponseData a = joining("a");
        assertThat(Errors.forCode(a.errorCode())).isEqualTo(Errors.NONE);
        assertThat(a.memberEpoch()).isEqualTo(1);
        assertThat(partitions(a)).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(group().stateName()).isEqualTo("Stable");

        ConsumerGroupHeartbeatResponseData b = joining("b");
        assertThat(group().groupEpoch).as("a join bumps the group epoch").isEqualTo(2);
        assertThat(b.memberEpoch()).as("b is at the new epoch").isEqualTo(2);
        assertThat(partitions(b)).as("but a still owns everything").isEmpty();
        assertThat(group().stateName()).isEqualTo("Reconciling");

        ConsumerGroupHeartbeatResponseData revoking = heartbeat("a", 1, Set.of(0, 1, 2, 3));
        assertThat(revoking.memberEpoch())
                .as("a keeps its epoch until it revoked")
                .isEqualTo(1);
        Set<Integer> kept = partitions(revoking);
        assertThat(kept).hasSize(2);
        assertThat(partitions(heartbeat("b", 2, Set.of())))
                .as("nothing released yet: b is given nothing")
                .isEmpty();

        ConsumerGroupHeartbeatResponseData revoked = heartbeat("a", 1, kept);
        assertThat(revoked.memberEpoch()).isEqualTo(2);
        ConsumerGroupHeartbeatResponseData given = heartbeat("b", 2, Set.of());
        assertThat(partitions(given)).hasSize(2).doesNotContainAnyElementsOf(kept);
        assertThat(group().stateName()).isEqualTo("Stable");

        assertThat(group().validateCommit("a", 2)).isEqualTo(Errors.NONE);
        assertThat(group().validateCommit("a", 1)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(group().validateCommit("x", 2)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void anEpochOtherThanTheCurrentOrThePreviousIsFenced() {
        joining("a");
        ConsumerGroupHeartbeatResponseData fenced = heartbeat("a", 7, null);
        assertThat(Errors.forCode(fenced.errorCode())).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThat(Errors.forCode(heartbeat("nobody", 1, null).errorCode())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        ConsumerGroupHeartbeatResponseData rejoined = joining("a");
        assertThat(rejoined.memberEpoch())
                .as("a fenced member rejoins with epoch 0 and its id")
                .isEqualTo(1);
        assertThat(partitions(rejoined)).containsExactlyInAnyOrder(0, 1, 2, 3);
    }

    @Test
    void aMemberSilentForTheSessionTimeoutIsRemovedAndTheGroupEpochBumps() {
        joining("a");
        joining("b");
        for (int i = 0; i < 3; i++) {
            time.advance(Duration.ofMillis(SESSION_MS / 3));
            heartbeat("b", group().members.get("b").memberEpoch, null);
        }
        assertThat(group().members).as("a has not heartbeated for 45 s").containsOnlyKeys("b");
        assertThat(group().groupEpoch).isEqualTo(3);
        ConsumerGroupHeartbeatResponseData b = heartbeat("b", 2, Set.of());
        assertThat(b.memberEpoch()).isEqualTo(3);
        assertThat(partitions(b)).as("a's partitions are b's").containsExactlyInAnyOrder(0, 1, 2, 3);
    }

    @Test
    void aGroupsOwnSessionTimeoutAndHeartbeatIntervalApplyFromTheNextHeartbeat() {
        joining("a");
        assertThat(heartbeat("a", 1, null).heartbeatIntervalMs()).isEqualTo(5_000);
        configs.alter(
                "g",
                c -> Map.of(
                        GroupConfig.CONSUMER_SESSION_TIMEOUT_MS_CONFIG, "55000",
                        GroupConfig.CONSUMER_HEARTBEAT_INTERVAL_MS_CONFIG, "7000"),
                false);
        assertThat(heartbeat("a", 1, null).heartbeatIntervalMs())
                .as("the group's consumer.heartbeat.interval.ms")
                .isEqualTo(7_000);
        time.advance(Duration.ofMillis(SESSION_MS + 1_000));
        assertThat(group().members)
                .as("the broker's 45 s are not the group's 55 s")
                .containsOnlyKeys("a");
        time.advance(Duration.ofMillis(10_000));
        assertThat(group().members)
                .as("silent for the group's consumer.session.timeout.ms")
                .isEmpty();
    }

    @Test
    void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsFenced() {
        joining("a");
        joining("b");
        heartbeat("a", 1, Set.of(0, 1, 2, 3)); // told to revoke two partitions; it never reports them gone
        time.advance(Duration.ofMillis(REBALANCE_MS / 2));
        heartbeat("b", 2, Set.of());
        heartbeat("a", 1, Set.of(0, 1, 2, 3));
        time.advance(Duration.ofMillis(REBALANCE_MS / 2));
        assertThat(group().members).containsOnlyKeys("b");
        assertThat(Errors.forCode(heartbeat("a", 1, null).errorCode())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(partitions(heartbeat("b", 2, Set.of()))).containsExactlyInAnyOrder(0, 1, 2, 3);
    }

    @Test
    void aStaticMemberLeavingForNowKeepsItsAssignmentForItsReplacement() {
        ConsumerGroupHeartbeatRequestData first = new ConsumerGroupHeartbeatRequestData()
                .setGroupId("g")
                .setMemberId("a1")
                .setInstanceId("i")
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(REBALANCE_MS)
                .setSubscribedTopicNames(List.of("t"))
                .setTopicPartitions(List.of());
        assertThat(groups.getOrCreate("g").heartbeat(first, "c", "/h").memberEpoch())
                .isEqualTo(1);
        ConsumerGroupHeartbeatRequestData leave = new ConsumerGroupHeartbeatRequestData()
                .setGroupId("g")
                .setMemberId("a1")
                .setInstanceId("i")
                .setMemberEpoch(ConsumerGroup.STATIC_LEAVE_EPOCH);
        assertThat(groups.invalid(leave, VERSION)).isEmpty();
        assertThat(groups.getOrCreate("g").heartbeat(leave, "c", "/h").memberEpoch())
                .isEqualTo(ConsumerGroup.STATIC_LEAVE_EPOCH);
        ConsumerGroupHeartbeatResponseData replaced =
                groups.getOrCreate("g").heartbeat(first.setMemberId("a2"), "c", "/h");
        assertThat(replaced.memberEpoch())
                .as("no rebalance: the epoch it left with")
                .isEqualTo(1);
        assertThat(partitions(replaced)).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(group().groupEpoch).isEqualTo(1);
    }

    @Test
    void requestsApacheRefusesAreRefused() {
        ConsumerGroupHeartbeatRequestData noTimeout = new ConsumerGroupHeartbeatRequestData()
                .setGroupId("g")
                .setMemberId("a")
                .setMemberEpoch(0)
                .setSubscribedTopicNames(List.of("t"))
                .setTopicPartitions(List.of());
        assertThat(groups.invalid(noTimeout, VERSION))
                .get()
                .extracting(r -> Errors.forCode(r.errorCode()))
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(groups.invalid(noTimeout.setRebalanceTimeoutMs(1).setServerAssignor("sticky"), VERSION))
                .get()
                .extracting(r -> Errors.forCode(r.errorCode()))
                .isEqualTo(Errors.UNSUPPORTED_ASSIGNOR);
    }
}
