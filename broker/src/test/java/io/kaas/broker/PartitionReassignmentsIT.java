package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterPartitionReassignmentsOptions;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AlterPartitionReassignments / ListPartitionReassignments on a broker on its own (no --coordinator): it answers as a
 * one-broker Apache cluster does (a move to itself changes nothing, any other broker is unknown, nothing to cancel or
 * list), with Apache's checks; and the broker-level replication throttles kafka-reassign-partitions clears.
 * The shared-cluster side is {@code ReassignPartitionsToolIT}.
 */
class PartitionReassignmentsIT {
    @TempDir
    static Path dir;

    static TestBroker b;
    static final TopicPartition T0 = new TopicPartition("r", 0);

    @BeforeAll
    static void start() throws Exception {
        b = new TestBroker(dir);
        try (Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic("r", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        b.close();
    }

    private static void alter(Admin admin, TopicPartition tp, List<Integer> replicas) throws Exception {
        alter(admin, tp, replicas, new AlterPartitionReassignmentsOptions());
    }

    private static void alter(
            Admin admin, TopicPartition tp, List<Integer> replicas, AlterPartitionReassignmentsOptions options)
            throws Exception {
        admin.alterPartitionReassignments(
                        Map.of(
                                tp,
                                replicas == null
                                        ? Optional.empty()
                                        : Optional.of(new NewPartitionReassignment(replicas))),
                        options)
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    @Test
    void aMoveToTheOnlyBrokerIsANoOpAndNothingIsEverInProgress() throws Exception {
        try (Admin admin = b.admin()) {
            alter(admin, T0, List.of(0));
            assertThat(admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(admin.listPartitionReassignments(java.util.Set.of(T0))
                            .reassignments()
                            .get(30, TimeUnit.SECONDS))
                    .isEmpty();
            assertThatThrownBy(() -> alter(admin, T0, null))
                    .hasCauseInstanceOf(NoReassignmentInProgressException.class);
        }
    }

    @Test
    void badTargetsGetApachesErrors() throws Exception {
        try (Admin admin = b.admin()) {
            assertThatThrownBy(() -> alter(admin, T0, List.of(1)))
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class)
                    .hasMessageContaining("includes broker 1, but no such broker is registered");
            assertThatThrownBy(() -> alter(admin, T0, List.of(0, 0)))
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class)
                    .hasMessageContaining("includes the broker 0 more than once");
            assertThatThrownBy(() -> alter(admin, new TopicPartition("r", 1), List.of(0)))
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class)
                    .hasMessageContaining("Unable to find partition r:1");
            assertThatThrownBy(() -> alter(admin, new TopicPartition("nope", 0), List.of(0)))
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
            assertThatThrownBy(() -> alter(
                            admin,
                            T0,
                            List.of(0, 1),
                            new AlterPartitionReassignmentsOptions().allowReplicationFactorChange(false)))
                    .hasCauseInstanceOf(InvalidReplicationFactorException.class);
        }
    }

    /** kafka-clients refuses an empty list before sending it; another client may not. */
    @Test
    void anEmptyReplicaListIsRefusedAsApacheRefusesIt() throws Exception {
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort())) {
            AlterPartitionReassignmentsResponseData r = raw.roundTrip(
                    ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
                    (short) 1,
                    new AlterPartitionReassignmentsRequestData()
                            .setTopics(List.of(new AlterPartitionReassignmentsRequestData.ReassignableTopic()
                                    .setName("r")
                                    .setPartitions(
                                            List.of(new AlterPartitionReassignmentsRequestData.ReassignablePartition()
                                                    .setPartitionIndex(0)
                                                    .setReplicas(List.of()))))));
            AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse p =
                    r.responses().get(0).partitions().get(0);
            assertThat(r.errorCode()).isZero();
            assertThat(Errors.forCode(p.errorCode())).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
            assertThat(p.errorMessage()).isEqualTo("The manual partition assignment includes an empty replica list.");
        }
    }

    @Test
    void clearingBrokerThrottlesIsANoOpSettingOneIsRefusedAndDescribeConfigsStillAnswers() throws Exception {
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "0");
        try (Admin admin = b.admin()) {
            // What kafka-reassign-partitions --verify sends once every move is done.
            admin.incrementalAlterConfigs(Map.of(
                            broker,
                            List.of(
                                    new AlterConfigOp(
                                            new ConfigEntry("leader.replication.throttled.rate", null),
                                            AlterConfigOp.OpType.DELETE),
                                    new AlterConfigOp(
                                            new ConfigEntry("follower.replication.throttled.rate", null),
                                            AlterConfigOp.OpType.DELETE),
                                    new AlterConfigOp(
                                            new ConfigEntry("replica.alter.log.dirs.io.max.bytes.per.second", null),
                                            AlterConfigOp.OpType.DELETE)),
                            new ConfigResource(ConfigResource.Type.TOPIC, "r"),
                            List.of(
                                    new AlterConfigOp(
                                            new ConfigEntry("leader.replication.throttled.replicas", null),
                                            AlterConfigOp.OpType.DELETE),
                                    new AlterConfigOp(
                                            new ConfigEntry("follower.replication.throttled.replicas", null),
                                            AlterConfigOp.OpType.DELETE))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(
                                    broker,
                                    List.of(new AlterConfigOp(
                                            new ConfigEntry("leader.replication.throttled.rate", "1000"),
                                            AlterConfigOp.OpType.SET))))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("no replication to throttle");
            // Any other broker config stays read-only.
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(
                                    broker,
                                    List.of(new AlterConfigOp(
                                            new ConfigEntry("log.retention.hours", null),
                                            AlterConfigOp.OpType.DELETE))))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .hasMessageContaining("read-only");
            assertThat(admin.describeConfigs(List.of(broker))
                            .all()
                            .get(30, TimeUnit.SECONDS)
                            .get(broker)
                            .get("log.retention.hours")
                            .value())
                    .isEqualTo("168");
        }
    }
}
