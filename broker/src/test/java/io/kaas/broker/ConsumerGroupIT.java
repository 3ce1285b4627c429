package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real consumer group of three, one member leaving and another joining while records flow. */
class ConsumerGroupIT {
    @TempDir
    Path dir;

    /** One group member on its own thread: polls, records what it saw, commits after each poll and on revocation. */
    static final class Member implements AutoCloseable {
        final AtomicBoolean running = new AtomicBoolean(true);
        final Thread thread;

        Member(TestBroker b, String name, String group, Collection<String> seen, Map<String, Object> extra) {
            Map<String, Object> cfg = new HashMap<>(Map.of(
                    ConsumerConfig.GROUP_ID_CONFIG,
                    group,
                    ConsumerConfig.CLIENT_ID_CONFIG,
                    name,
                    ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                    50));
            if (!"consumer".equals(extra.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG))) {
                // KIP-848 members take their heartbeat interval and session timeout from the broker.
                cfg.putAll(Map.of(
                        ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                        500,
                        ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                        10_000));
            }
            cfg.putAll(extra);
            thread = new Thread(
                    () -> {
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
                                    processed.put(
                                            new TopicPartition(r.topic(), r.partition()),
                                            new OffsetAndMetadata(r.offset() + 1));
                                }
                                if (!processed.isEmpty()) {
                                    c.commitSync(processed);
                                    processed.clear();
                                }
                            }
                        }
                    },
                    "test-consumer-" + name);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(30_000);
        }
    }

    @Test
    void membersLeavingAndJoiningMidStreamLoseAndDuplicateNothing() throws Exception {
        try (TestBroker b = new TestBroker(dir);
                Admin admin = b.admin();
                KafkaProducer<byte[], byte[]> producer = b.producer(Map.of())) {
            admin.createTopics(List.of(new NewTopic("orders", 3, (short) 1)))
                    .all()
                    .get();
            ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
            int total = 0;
            List<Member> members = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                members.add(new Member(b, "m" + i, "billing", seen, Map.of()));
            }
            total = produce(producer, total, 600);
            await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() >= 300);
            members.remove(0).close();
            total = produce(producer, total, 600);
            members.add(new Member(b, "m3", "billing", seen, Map.of()));
            total = produce(producer, total, 600);
            int expected = total;
            await().atMost(Duration.ofSeconds(90)).until(() -> new HashSet<>(seen).size() >= expected);
            for (Member m : members) {
                m.close();
            }
            assertThat(new HashSet<>(seen)).hasSize(total);
            assertThat(seen).doesNotHaveDuplicates();

            assertANewMemberResumesExactly(
                    producer, total, seenByIt -> new Member(b, "m4", "billing", seenByIt, Map.of()));
        }
    }

    @Test
    void committedOffsetsSurviveARestart() throws Exception {
        try (TestBroker b = new TestBroker(dir)) {
            try (KafkaProducer<byte[], byte[]> producer = b.producer(Map.of())) {
                produce(producer, 0, 100);
            }
            ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
            try (Member m =
                    new Member(b, "a", "restarts", seen, Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "static-a"))) {
                await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() >= 100);
            }
            b.restart();
            try (KafkaProducer<byte[], byte[]> producer = b.producer(Map.of())) {
                produce(producer, 100, 10);
            }
            ConcurrentLinkedQueue<String> after = new ConcurrentLinkedQueue<>();
            try (Member m = new Member(
                    b, "a", "restarts", after, Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "static-a"))) {
                await().atMost(Duration.ofSeconds(60)).until(() -> after.size() >= 10);
            }
            assertThat(seen).hasSize(100);
            assertThat(after).hasSize(10).allMatch(v -> Integer.parseInt(v.substring(1)) >= 100);
        }
    }

    /** A new member of the group starts at the committed offsets: of 30 more records it sees each once, and nothing older. */
    static void assertANewMemberResumesExactly(
            KafkaProducer<byte[], byte[]> producer, int total, Function<Collection<String>, Member> newMember)
            throws Exception {
        int after = produce(producer, total, 30);
        ConcurrentLinkedQueue<String> resumed = new ConcurrentLinkedQueue<>();
        try (Member late = newMember.apply(resumed)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> resumed.size() >= 30);
        }
        Set<String> expectedNew = new HashSet<>();
        for (int i = total; i < after; i++) {
            expectedNew.add("r" + i);
        }
        assertThat(resumed).containsExactlyInAnyOrderElementsOf(expectedNew);
    }

    static int produce(KafkaProducer<byte[], byte[]> p, int from, int n) throws Exception {
        for (int i = from; i < from + n; i++) {
            p.send(new ProducerRecord<>(
                    "orders", ("k" + i).getBytes(StandardCharsets.UTF_8), ("r" + i).getBytes(StandardCharsets.UTF_8)));
        }
        p.flush();
        return from + n;
    }
}
