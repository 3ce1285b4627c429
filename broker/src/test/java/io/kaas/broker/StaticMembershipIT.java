package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testing.ExternalTool;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Static membership (KIP-345, KIP-814; KIP-848 for the consumer protocol) with kafka-clients and librdkafka: a
 * member with a group.instance.id that closes (no LeaveGroup: neither client sends one for a static member)
 * and comes back within its session timeout gets its partitions back, and the other member sees no
 * revocation, whether the one restarted led the group or not. A second incarnation fences the first; the
 * admin removes static members by instance id.
 */
class StaticMembershipIT {
    private static final String TOPIC = "static";
    private static final int PARTITIONS = 4;

    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() {
        b = new TestBroker(BrokerConfig.forTest(dir.resolve("data")));
        b.broker().engine().createTopic(TOPIC, PARTITIONS, TopicConfig.EMPTY);
    }

    @AfterAll
    static void stop() {
        b.close();
    }

    /** A group member polling on its own thread, counting the revocations it is told of. */
    static final class Member implements AutoCloseable {
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicReference<Set<Integer>> assigned = new AtomicReference<>(Set.of());
        final AtomicInteger revocations = new AtomicInteger();
        final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        final Thread thread;

        Member(String group, String instance, String protocol) {
            Map<String, Object> cfg = new HashMap<>(Map.of(
                    ConsumerConfig.GROUP_ID_CONFIG,
                    group,
                    ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
                    instance,
                    ConsumerConfig.CLIENT_ID_CONFIG,
                    instance,
                    ConsumerConfig.GROUP_PROTOCOL_CONFIG,
                    protocol));
            if (protocol.equals("classic")) {
                cfg.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
                cfg.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 30_000);
            }
            thread = new Thread(
                    () -> {
                        try (KafkaConsumer<byte[], byte[]> c = b.consumer(cfg)) {
                            c.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                                @Override
                                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                                    if (!partitions.isEmpty()) {
                                        revocations.incrementAndGet();
                                    }
                                    assigned.set(Set.of());
                                }

                                @Override
                                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                                    onPartitionsRevoked(partitions);
                                }

                                @Override
                                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                                    assigned.set(numbers(c.assignment()));
                                }
                            });
                            while (running.get()) {
                                c.poll(Duration.ofMillis(100));
                                assigned.set(numbers(c.assignment()));
                            }
                        } catch (RuntimeException e) {
                            failure.set(e);
                        }
                    },
                    "static-member-" + instance);
            thread.start();
        }

        private static Set<Integer> numbers(Set<TopicPartition> partitions) {
            Set<Integer> out = new TreeSet<>();
            partitions.forEach(p -> out.add(p.partition()));
            return out;
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(30_000);
        }
    }

    private static void awaitSplit(Member x, Member y) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !x.assigned.get().isEmpty()
                        && !y.assigned.get().isEmpty()
                        && x.assigned.get().size() + y.assigned.get().size() == PARTITIONS);
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aRestartedStaticMemberGetsItsPartitionsBackAndTheOtherIsNotRevoked(String protocol) throws Exception {
        String group = "restarts-" + protocol;
        Member a = new Member(group, "a", protocol);
        await().atMost(Duration.ofSeconds(60)).until(() -> a.assigned.get().size() == PARTITIONS);
        Member bm = new Member(group, "b", protocol);
        awaitSplit(a, bm);
        Map<String, Member> members = new HashMap<>(Map.of("a", a, "b", bm));
        try {
            // "a" joined first (the classic group's leader), then "b" (a follower).
            for (String restarting : List.of("a", "b")) {
                Member leaving = members.get(restarting);
                Member staying = members.get(restarting.equals("a") ? "b" : "a");
                Set<Integer> before = leaving.assigned.get();
                Set<Integer> otherBefore = staying.assigned.get();
                int otherRevocations = staying.revocations.get();
                leaving.close();
                Member back = new Member(group, restarting, protocol);
                members.put(restarting, back);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> back.assigned.get().equals(before));
                // A rebalance would show within a few heartbeats: the other keeps heartbeating a while.
                try {
                    await().during(Duration.ofSeconds(3))
                            .atMost(Duration.ofSeconds(10))
                            .until(() -> staying.revocations.get() == otherRevocations);
                } catch (ConditionTimeoutException e) {
                    // reported with the figures below
                }
                System.out.printf(
                        "%s: restarted %s had %s, got %s; other had %s, has %s, revoked %d times%n",
                        protocol,
                        restarting,
                        before,
                        back.assigned.get(),
                        otherBefore,
                        staying.assigned.get(),
                        staying.revocations.get() - otherRevocations);
                assertThat(staying.revocations.get() - otherRevocations)
                        .as("revocations of the other member")
                        .isZero();
                assertThat(staying.assigned.get()).isEqualTo(otherBefore);
                assertThat(back.assigned.get()).isEqualTo(before);
                assertThat(back.revocations.get()).isZero();
            }
        } finally {
            for (Member m : members.values()) {
                m.close();
            }
        }
        assertThat(members.values()).allMatch(m -> m.failure.get() == null);
    }

    @Test
    void aNewIncarnationFencesTheOldMemberId() throws Exception {
        try (Member first = new Member("fenced", "x", "classic")) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> first.assigned.get().size() == PARTITIONS);
            try (Member second = new Member("fenced", "x", "classic")) {
                await().atMost(Duration.ofSeconds(60)).until(() -> first.failure.get() != null);
                assertThat(first.failure.get()).isInstanceOf(FencedInstanceIdException.class);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> second.assigned.get().size() == PARTITIONS);
                assertThat(second.failure.get()).isNull();
            }
        }
    }

    @Test
    void theAdminRemovesStaticMembersByInstanceId() throws Exception {
        try (Member x = new Member("removed", "x", "classic");
                Member y = new Member("removed", "y", "classic");
                Admin admin = b.admin()) {
            awaitSplit(x, y);
            // y stops without LeaveGroup (static): its partitions would wait for its 30 s session timeout.
            y.close();
            long removed = System.nanoTime();
            admin.removeMembersFromConsumerGroup(
                            "removed", new RemoveMembersFromConsumerGroupOptions(List.of(new MemberToRemove("y"))))
                    .all()
                    .get();
            await().atMost(Duration.ofSeconds(20)).until(() -> x.assigned.get().size() == PARTITIONS);
            assertThat(Duration.ofNanos(System.nanoTime() - removed)).isLessThan(Duration.ofSeconds(25));
            assertThat(admin.describeConsumerGroups(List.of("removed"))
                            .all()
                            .get()
                            .get("removed")
                            .members())
                    .extracting(m -> m.groupInstanceId().orElse(""))
                    .containsExactly("x");
            var unknown = admin.removeMembersFromConsumerGroup(
                    "removed", new RemoveMembersFromConsumerGroupOptions(List.of(new MemberToRemove("nobody"))));
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> unknown.all().get())
                    .hasRootCauseInstanceOf(org.apache.kafka.common.errors.UnknownMemberIdException.class);
        }
    }

    @Test
    void librdkafkaStaticMembersRestartWithoutRevokingTheOther() throws Exception {
        ExternalTool.PYTHON3_CONFLUENT_KAFKA.assumePresent();
        Path script = dir.resolve("librdkafka_static_members.py");
        try (InputStream in = StaticMembershipIT.class.getResourceAsStream("librdkafka_static_members.py")) {
            Files.copy(in, script);
        }
        ExternalProcess p = ExternalProcess.run(
                dir,
                null,
                List.of(ExternalTool.DEBIAN_PYTHON.toString(), script.toString(), b.bootstrap(), TOPIC, "rdk-static"));
        assertThat(p.exitCode()).as(p.toString()).isZero();
        JsonNode rounds = new ObjectMapper().readTree(p.out()).get("rounds");
        System.out.println("librdkafka static members: " + rounds);
        assertThat(rounds).hasSize(2);
        for (JsonNode r : rounds) {
            assertThat(r.get("other_revocations").asInt()).as(r.toString()).isZero();
            assertThat(r.get("after")).as(r.toString()).isEqualTo(r.get("before"));
            assertThat(r.get("other_after")).as(r.toString()).isEqualTo(r.get("other_before"));
        }
    }
}
