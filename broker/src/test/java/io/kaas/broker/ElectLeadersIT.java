package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ElectLeaders on single-copy partitions: the Admin API and Apache's {@code kafka-leader-election} see
 * every partition already led by its preferred (only) replica, and unknown partitions as unknown.
 */
class ElectLeadersIT {
    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() {
        b = new TestBroker(
                BrokerConfig.forTest(dir.resolve("data")).withRetentionCheckInterval(java.time.Duration.ZERO));
        b.broker().engine().createTopic("elect", 2, TopicConfig.EMPTY);
    }

    @AfterAll
    static void stop() {
        if (b != null) {
            b.close();
        }
    }

    @Test
    void adminElectLeadersAnswersElectionNotNeededOrUnknown() throws Exception {
        TopicPartition known = new TopicPartition("elect", 1);
        TopicPartition unknownPartition = new TopicPartition("elect", 7);
        TopicPartition unknownTopic = new TopicPartition("no-such-topic", 0);
        try (Admin admin = b.admin(Map.of())) {
            for (ElectionType type : ElectionType.values()) {
                Map<TopicPartition, Optional<Throwable>> r = admin.electLeaders(
                                type, Set.of(known, unknownPartition, unknownTopic))
                        .partitions()
                        .get();
                assertThat(r.get(known)).containsInstanceOf(ElectionNotNeededException.class);
                assertThat(r.get(unknownPartition)).containsInstanceOf(UnknownTopicOrPartitionException.class);
                assertThat(r.get(unknownTopic)).containsInstanceOf(UnknownTopicOrPartitionException.class);
            }
            // Every partition: those that need no election are left out, as Apache's controller does.
            assertThat(admin.electLeaders(ElectionType.PREFERRED, null)
                            .partitions()
                            .get())
                    .isEmpty();
        }
    }

    @Test
    void kafkaLeaderElection() throws Exception {
        ExternalProcess one = tool("--election-type", "PREFERRED", "--topic", "elect", "--partition", "0");
        assertThat(one.exitCode()).as("%s", one).isZero();
        assertThat(one.out()).contains("elect-0");
        ExternalProcess all = tool("--election-type", "PREFERRED", "--all-topic-partitions");
        assertThat(all.exitCode()).as("%s", all).isZero();
        ExternalProcess unknown = tool("--election-type", "PREFERRED", "--topic", "no-such-topic", "--partition", "0");
        assertThat(unknown.exitCode()).as("%s", unknown).isNotZero();
        assertThat(unknown.out() + unknown.err()).contains("no-such-topic-0");
    }

    private static ExternalProcess tool(String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = b.bootstrap();
        System.arraycopy(args, 0, all, 2, args.length);
        return ExternalProcess.java(dir, null, "org.apache.kafka.tools.LeaderElectionCommand", all);
    }
}
