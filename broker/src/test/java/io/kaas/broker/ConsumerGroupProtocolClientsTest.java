package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.group.ConsumerGroupConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InconsistentGroupProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kafka-clients with group.protocol=consumer (KIP-848) against kaas: rebalances, exact resume, both group kinds. */
class ConsumerGroupProtocolClientsTest {
    @TempDir
    Path dir;

    private TestBroker broker() {
        return new TestBroker(BrokerConfig.forTest(dir).withRetentionCheckInterval(Duration.ZERO)
                .withConsumerGroups(ConsumerGroupConfig.defaults().withTimeouts(200, 10_000)));
    }

    /** A consumer-protocol member on its own thread: commits after each poll and in its revocation callback. */
    static final class Member implements AutoCloseable {
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread thread;

        Member(TestBroker b, String name, String group, Collection<String> seen) {
            Map<String, Object> cfg = new HashMap<>(Map.of(ConsumerConfig.GROUP_ID_CONFIG, group,
                    ConsumerConfig.CLIENT_ID_CONFIG, name, ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50,
                    ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer"));
            thread = new Thread(() -> {
                try (KafkaConsumer<byte[], byte[]> c = b.consumer(cfg)) {
                    Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
                    c.subscribe(List.of("orders"), new ConsumerRebalanceListener() {
                        @Override
                        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                            if (!processed.isEmpty()) {
                                c.commitSync(processed);
                                processed.clear();
                            }
                        }

                        @Override
                        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
                    });
                    while (running.get()) {
                        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                            seen.add(new String(r.value(), StandardCharsets.UTF_8));
                            processed.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                        }
                        if (!processed.isEmpty()) {
                            c.commitSync(processed);
                            processed.clear();
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "test-consumer-" + name);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(30_000);
            assertThat(failure.get()).as("member failure").isNull();
        }
    }

    @Test
    void membersJoiningAndLeavingLoseAndDuplicateNothingAndANewMemberResumesExactly() throws Exception {
        try (TestBroker b = broker(); Admin admin = b.admin(); KafkaProducer<byte[], byte[]> producer = b.producer(Map.of())) {
            admin.createTopics(List.of(new NewTopic("orders", 6, (short) 1))).all().get();
            ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
            List<Member> members = new ArrayList<>();
            members.add(new Member(b, "m0", "billing", seen));
            int total = ConsumerGroupTest.produce(producer, 0, 300);
            await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() >= 100);
            members.add(new Member(b, "m1", "billing", seen));
            total = ConsumerGroupTest.produce(producer, total, 300);
            members.add(new Member(b, "m2", "billing", seen));
            total = ConsumerGroupTest.produce(producer, total, 300);
            await().atMost(Duration.ofSeconds(60)).until(() -> describe(admin, "billing").members().size() == 3
                    && describe(admin, "billing").members().stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty()));
            members.remove(0).close();
            total = ConsumerGroupTest.produce(producer, total, 300);
            int expected = total;
            await().atMost(Duration.ofSeconds(90)).until(() -> new HashSet<>(seen).size() >= expected);
            ConsumerGroupDescription d = describe(admin, "billing");
            assertThat(d.type()).isEqualTo(GroupType.CONSUMER);
            assertThat(d.members()).hasSize(2);
            for (Member m : members) {
                m.close();
            }
            assertThat(new HashSet<>(seen)).hasSize(total);
            assertThat(seen).doesNotHaveDuplicates();

            total = ConsumerGroupTest.produce(producer, total, 30);
            ConcurrentLinkedQueue<String> resumed = new ConcurrentLinkedQueue<>();
            try (Member late = new Member(b, "m3", "billing", resumed)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> resumed.size() >= 30);
            }
            Set<String> expectedNew = new HashSet<>();
            for (int i = total - 30; i < total; i++) {
                expectedNew.add("r" + i);
            }
            assertThat(resumed).containsExactlyInAnyOrderElementsOf(expectedNew);
        }
    }

    @Test
    void classicAndConsumerGroupsSideBySideInAdminAndTheGroupsTool() throws Exception {
        try (TestBroker b = broker(); Admin admin = b.admin(); KafkaProducer<byte[], byte[]> producer = b.producer(Map.of())) {
            admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();
            ConsumerGroupTest.produce(producer, 0, 20);
            ConcurrentLinkedQueue<String> newSeen = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> oldSeen = new ConcurrentLinkedQueue<>();
            try (Member modern = new Member(b, "modern", "new-group", newSeen);
                 ConsumerGroupTest.Member classic = new ConsumerGroupTest.Member(b, "classic", "old-group", oldSeen, Map.of())) {
                await().atMost(Duration.ofSeconds(60)).until(() -> newSeen.size() >= 20 && oldSeen.size() >= 20);

                Map<String, GroupType> types = new HashMap<>();
                for (GroupListing l : admin.listGroups().all().get()) {
                    types.put(l.groupId(), l.type().orElseThrow());
                }
                assertThat(types).containsEntry("new-group", GroupType.CONSUMER).containsEntry("old-group", GroupType.CLASSIC);
                assertThat(describe(admin, "old-group").type()).isEqualTo(GroupType.CLASSIC);

                // A classic member cannot join the consumer group while it has members.
                try (KafkaConsumer<byte[], byte[]> intruder = b.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "new-group"))) {
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
                String described = ExternalProcess.java(dir, null, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                        "--bootstrap-server", bs, "--describe", "--all-groups").out();
                assertThat(described).contains("new-group", "old-group", "orders");
                String state = ExternalProcess.java(dir, null, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                        "--bootstrap-server", bs, "--describe", "--group", "new-group", "--state").out();
                assertThat(state).contains("uniform", "Stable");
            }
        }
    }

    private static ConsumerGroupDescription describe(Admin admin, String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
    }
}
