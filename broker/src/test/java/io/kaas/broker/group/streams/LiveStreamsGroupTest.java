package io.kaas.broker.group.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.coordinator.ManualScheduler;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.TopicConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.junit.jupiter.api.Test;

/**
 * One streams group driven directly on fake time, no broker: topology configuration, Apache's sticky task
 * assignment, the revoke-before-give reconciliation, epochs, leave and session expiry.
 */
class LiveStreamsGroupTest {
    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, TopicInfo> topics = new HashMap<>();
    private final LiveStreamsGroup group = new LiveStreamsGroup("app", StreamsGroupConfig::defaults, time);

    LiveStreamsGroupTest() {
        topics.put("in", new TopicInfo("in", UUID.randomUUID(), 4, TopicConfig.EMPTY));
    }

    @Test
    void aTaskMovesOnlyAfterItsOwnerRevokedIt() {
        StreamsGroupHeartbeatResponseData a = join("a");
        assertThat(a.errorCode()).isZero();
        assertThat(tasks(a.activeTasks())).containsExactly(0, 1, 2, 3);
        int aEpoch = a.memberEpoch();
        a = beat("a", aEpoch, tasks(0, 1, 2, 3));
        assertThat(a.memberEpoch()).isEqualTo(aEpoch);

        // b joins: the target gives it two of a's tasks, but a still owns them, so b gets nothing yet.
        StreamsGroupHeartbeatResponseData b = join("b");
        int target = b.memberEpoch();
        assertThat(target).isGreaterThan(aEpoch);
        assertThat(tasks(b.activeTasks())).isEmpty();

        // a is told to give two up; it keeps its epoch until it reports them gone.
        a = beat("a", aEpoch, tasks(0, 1, 2, 3));
        assertThat(a.memberEpoch()).isEqualTo(aEpoch);
        List<Integer> kept = tasks(a.activeTasks());
        assertThat(kept).hasSize(2);
        StreamsGroupHeartbeatResponseData bAgain = beat("b", target, tasks());
        assertThat(bAgain.activeTasks()).as("nothing released yet").isNull();

        a = beat("a", aEpoch, tasksOf(kept));
        assertThat(a.memberEpoch()).isEqualTo(target);
        b = beat("b", target, tasks());
        List<Integer> moved = tasks(b.activeTasks());
        assertThat(moved).hasSize(2).doesNotContainAnyElementsOf(kept);
    }

    @Test
    void aLeavingOrSilentMemberFreesItsTasks() {
        StreamsGroupHeartbeatResponseData a = join("a");
        a = beat("a", a.memberEpoch(), tasks(0, 1, 2, 3));
        StreamsGroupHeartbeatResponseData b = join("b");
        a = beat("a", a.memberEpoch(), tasks(0, 1, 2, 3));
        a = beat("a", a.memberEpoch(), tasksOf(tasks(a.activeTasks())));
        b = beat("b", b.memberEpoch(), tasks());
        assertThat(tasks(b.activeTasks())).hasSize(2);

        // b leaves (epoch -1): a gets every task back at a new epoch.
        StreamsGroupHeartbeatResponseData left = heartbeat(request("b", -1));
        assertThat(left.memberEpoch()).isEqualTo(-1);
        a = beat("a", a.memberEpoch(), tasksOf(tasks(a.activeTasks())));
        assertThat(tasks(a.activeTasks())).containsExactly(0, 1, 2, 3);

        // c joins, then falls silent: after the session timeout a gets its tasks back again.
        StreamsGroupHeartbeatResponseData c = join("c");
        List<Integer> owned = List.of(0, 1, 2, 3);
        int epoch = a.memberEpoch();
        for (int i = 0; i < 14; i++) {
            a = beat("a", epoch, tasksOf(owned));
            epoch = a.memberEpoch();
            if (a.activeTasks() != null) {
                owned = tasks(a.activeTasks());
            }
            if (i == 2) {
                assertThat(owned).as("shared with c").hasSize(2);
            }
            time.advance(Duration.ofSeconds(4));
        }
        assertThat(owned).containsExactly(0, 1, 2, 3);
        assertThat(heartbeat(request("c", c.memberEpoch())).errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    }

    @Test
    void epochsAreChecked() {
        StreamsGroupHeartbeatResponseData a = join("a");
        assertThat(heartbeat(request("a", a.memberEpoch() + 1)).errorCode())
                .isEqualTo(Errors.FENCED_MEMBER_EPOCH.code());
        assertThat(heartbeat(request("nobody", 3)).errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    }

    @Test
    void missingTopicsAreReportedAndInternalTopicsAskedFor() {
        StreamsGroupHeartbeatRequestData req = request("a", 0)
                .setRebalanceTimeoutMs(30_000)
                .setProcessId("p-a")
                .setActiveTasks(List.of())
                .setStandbyTasks(List.of())
                .setWarmupTasks(List.of())
                .setTopology(new StreamsGroupHeartbeatRequestData.Topology()
                        .setEpoch(0)
                        .setSubtopologies(List.of(
                                new StreamsGroupHeartbeatRequestData.Subtopology()
                                        .setSubtopologyId("0")
                                        .setSourceTopics(List.of("in"))
                                        .setRepartitionSinkTopics(List.of("app-rekey-repartition")),
                                new StreamsGroupHeartbeatRequestData.Subtopology()
                                        .setSubtopologyId("1")
                                        .setRepartitionSourceTopics(
                                                List.of(new StreamsGroupHeartbeatRequestData.TopicInfo()
                                                        .setName("app-rekey-repartition")))
                                        .setStateChangelogTopics(
                                                List.of(new StreamsGroupHeartbeatRequestData.TopicInfo()
                                                        .setName("app-store-changelog")
                                                        .setTopicConfigs(
                                                                List.of(new StreamsGroupHeartbeatRequestData.KeyValue()
                                                                        .setKey("cleanup.policy")
                                                                        .setValue("compact"))))))));
        StreamsHeartbeat hb = group.heartbeat(req, (short) 1, "c", "/127.0.0.1", new TopicImage(topics));
        assertThat(hb.response().status())
                .extracting(StreamsGroupHeartbeatResponseData.Status::statusCode)
                .contains(StreamsGroupHeartbeatResponse.Status.MISSING_INTERNAL_TOPICS.code());
        assertThat(tasks(hb.response().activeTasks())).isEmpty();
        // Partition counts derived from the source topic: the repartition topic's from "in", the changelog's from
        // its subtopology's tasks; the configs the topology asks for.
        assertThat(hb.topicsToCreate()).containsOnlyKeys("app-rekey-repartition", "app-store-changelog");
        assertThat(hb.topicsToCreate().get("app-rekey-repartition").numPartitions())
                .isEqualTo(4);
        assertThat(hb.topicsToCreate().get("app-store-changelog").numPartitions())
                .isEqualTo(4);
        assertThat(hb.topicsToCreate()
                        .get("app-store-changelog")
                        .configs()
                        .find("cleanup.policy")
                        .value())
                .isEqualTo("compact");

        // Once they exist, the topology is ready and the member gets all 8 tasks.
        topics.put(
                "app-rekey-repartition",
                new TopicInfo("app-rekey-repartition", UUID.randomUUID(), 4, TopicConfig.EMPTY));
        topics.put(
                "app-store-changelog", new TopicInfo("app-store-changelog", UUID.randomUUID(), 4, TopicConfig.EMPTY));
        StreamsGroupHeartbeatResponseData r =
                heartbeat(request("a", hb.response().memberEpoch()));
        assertThat(r.status()).isNullOrEmpty();
        assertThat(r.activeTasks()).hasSize(2);

        topics.clear();
        StreamsGroupHeartbeatResponseData gone = heartbeat(request("a", r.memberEpoch()));
        assertThat(gone.status())
                .extracting(StreamsGroupHeartbeatResponseData.Status::statusCode)
                .contains(StreamsGroupHeartbeatResponse.Status.MISSING_SOURCE_TOPICS.code());
    }

    private StreamsGroupHeartbeatResponseData join(String member) {
        return heartbeat(request(member, 0)
                .setRebalanceTimeoutMs(30_000)
                .setProcessId("p-" + member)
                .setActiveTasks(List.of())
                .setStandbyTasks(List.of())
                .setWarmupTasks(List.of())
                .setTopology(new StreamsGroupHeartbeatRequestData.Topology()
                        .setEpoch(0)
                        .setSubtopologies(List.of(new StreamsGroupHeartbeatRequestData.Subtopology()
                                .setSubtopologyId("0")
                                .setSourceTopics(List.of("in"))))));
    }

    private StreamsGroupHeartbeatResponseData beat(
            String member, int epoch, List<StreamsGroupHeartbeatRequestData.TaskIds> owned) {
        return heartbeat(request(member, epoch)
                .setActiveTasks(owned)
                .setStandbyTasks(List.of())
                .setWarmupTasks(List.of()));
    }

    private StreamsGroupHeartbeatResponseData heartbeat(StreamsGroupHeartbeatRequestData req) {
        assertThat(StreamsMemberChecks.invalid(req)).isEmpty();
        return group.heartbeat(req, (short) 1, "client", "/127.0.0.1", new TopicImage(topics))
                .response();
    }

    private static StreamsGroupHeartbeatRequestData request(String member, int epoch) {
        return new StreamsGroupHeartbeatRequestData()
                .setGroupId("app")
                .setMemberId(member)
                .setMemberEpoch(epoch);
    }

    private static List<StreamsGroupHeartbeatRequestData.TaskIds> tasks(Integer... partitions) {
        return tasksOf(List.of(partitions));
    }

    private static List<StreamsGroupHeartbeatRequestData.TaskIds> tasksOf(List<Integer> partitions) {
        return partitions.isEmpty()
                ? List.of()
                : List.of(new StreamsGroupHeartbeatRequestData.TaskIds()
                        .setSubtopologyId("0")
                        .setPartitions(List.copyOf(partitions)));
    }

    /** The partitions of subtopology 0's tasks in an answer, sorted; empty when none or not sent. */
    private static List<Integer> tasks(List<StreamsGroupHeartbeatResponseData.TaskIds> ids) {
        TreeSet<Integer> out = new TreeSet<>();
        if (ids != null) {
            ids.stream().filter(t -> t.subtopologyId().equals("0")).forEach(t -> out.addAll(t.partitions()));
        }
        return List.copyOf(out);
    }
}
