package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.group.ConsumerGroupConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.errors.InconsistentGroupProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kafka-clients with group.protocol=consumer (KIP-848) against kaas: rebalances, exact resume, both group kinds. */
class ConsumerGroupProtocolClientsIT {
    @TempDir
    Path dir;

    private TestBroker broker() {
        return new TestBroker(BrokerConfig.forTest(dir)
                .withRetentionCheckInterval(Duration.ZERO)
                .withConsumerGroups(ConsumerGroupConfig.defaults().withTimeouts(200, 10_000)));
    }

    private static ConsumerGroupIT.Member member(TestBroker b, String name, String group, Collection<String> seen) {
        return new ConsumerGroupIT.Member(
                b, name, group, seen, Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer"));
    }

    @Test
    void membersJoiningAndLeavingLoseAndDuplicateNothingAndANewMemberResumesExactly() throws Exception {
        try (TestBroker b = broker();
                Admin admin = b.admin();
                KafkaProducer<byte[], byte[]> producer = b.producer(Map.of())) {
            admin.createTopics(List.of(new NewTopic("orders", 6, (short) 1)))
                    .all()
                    .get();
            ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
            List<ConsumerGroupIT.Member> members = new ArrayList<>();
            members.add(member(b, "m0", "billing", seen));
            int total = ConsumerGroupIT.produce(producer, 0, 300);
            await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() >= 100);
            members.add(member(b, "m1", "billing", seen));
            total = ConsumerGroupIT.produce(producer, total, 300);
            members.add(member(b, "m2", "billing", seen));
            total = ConsumerGroupIT.produce(producer, total, 300);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> describe(admin, "billing").members().size() == 3
                            && describe(admin, "billing").members().stream()
                                    .allMatch(m ->
                                            !m.assignment().topicPartitions().isEmpty()));
            members.remove(0).close();
            total = ConsumerGroupIT.produce(producer, total, 300);
            int expected = total;
            await().atMost(Duration.ofSeconds(90)).until(() -> new HashSet<>(seen).size() >= expected);
            ConsumerGroupDescription d = describe(admin, "billing");
            assertThat(d.type()).isEqualTo(GroupType.CONSUMER);
            assertThat(d.members()).hasSize(2);
            for (ConsumerGroupIT.Member m : members) {
                m.close();
            }
            assertThat(new HashSet<>(seen)).hasSize(total);
            assertThat(seen).doesNotHaveDuplicates();

            ConsumerGroupIT.assertANewMemberResumesExactly(
                    producer, total, seenByIt -> member(b, "m3", "billing", seenByIt));
        }
    }

    @Test
    void classicAndConsumerGroupsSideBySideInAdminAndTheGroupsTool() throws Exception {
        try (TestBroker b = broker();
                Admin admin = b.admin();
                KafkaProducer<byte[], byte[]> producer = b.producer(Map.of())) {
            admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1)))
                    .all()
                    .get();
            ConsumerGroupIT.produce(producer, 0, 20);
            ConcurrentLinkedQueue<String> newSeen = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> oldSeen = new ConcurrentLinkedQueue<>();
            try (ConsumerGroupIT.Member modern = member(b, "modern", "new-group", newSeen);
                    ConsumerGroupIT.Member classic =
                            new ConsumerGroupIT.Member(b, "classic", "old-group", oldSeen, Map.of())) {
                await().atMost(Duration.ofSeconds(60)).until(() -> newSeen.size() >= 20 && oldSeen.size() >= 20);

                Map<String, GroupType> types = new HashMap<>();
                for (GroupListing l : admin.listGroups().all().get()) {
                    types.put(l.groupId(), l.type().orElseThrow());
                }
                assertThat(types)
                        .containsEntry("new-group", GroupType.CONSUMER)
                        .containsEntry("old-group", GroupType.CLASSIC);
                assertThat(describe(admin, "old-group").type()).isEqualTo(GroupType.CLASSIC);

                // A classic member cannot join the consumer group while it has members.
                try (KafkaConsumer<byte[], byte[]> intruder =
                        b.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "new-group"))) {
                    intruder.subscribe(List.of("orders"));
                    AtomicReference<Throwable> thrown = new AtomicReference<>();
                    await().atMost(Duration.ofSeconds(30)).until(() -> {
                        try {
                            intruder.poll(Duration.ofMillis(100));
                        } catch (InconsistentGroupProtocolException e) {
                            thrown.set(e);
                        }
                        return thrown.get() != null;
                    });
                }

                String bs = b.bootstrap();
                String described = ExternalProcess.java(
                                dir,
                                null,
                                "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                                "--bootstrap-server",
                                bs,
                                "--describe",
                                "--all-groups")
                        .out();
                assertThat(described).contains("new-group", "old-group", "orders");
                String state = ExternalProcess.java(
                                dir,
                                null,
                                "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                                "--bootstrap-server",
                                bs,
                                "--describe",
                                "--group",
                                "new-group",
                                "--state")
                        .out();
                assertThat(state).contains("uniform", "Stable");
            }
        }
    }

    private static ConsumerGroupDescription describe(Admin admin, String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group))
                .describedGroups()
                .get(group)
                .get();
    }
}
