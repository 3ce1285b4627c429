package io.kaas.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.KaasBroker;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cli.KaasRun;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.etcd.EtcdServer;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kaas assign} against two real brokers sharing a directory, coordinated by a real etcd: a pinned
 * partition moves to the broker named, a producer that keeps writing follows it there, the controller evens
 * the other partitions out around the pin and never moves it back; unpin, list and bad input.
 */
@ExtendWith(EtcdServer.Shared.class)
class AssignCommandIT {
    @TempDir
    Path dir;

    private final String clusterId = "assign-" + UUID.randomUUID();
    private final List<KaasBroker> brokers = new ArrayList<>();

    @AfterEach
    void stopAll() {
        brokers.forEach(KaasBroker::stop);
    }

    private KaasBroker start(EtcdServer etcd, int id) {
        KaasBroker b = KaasBroker.create(
                BrokerConfig.forTest(dir).withBrokerId(id).withClusterId(clusterId),
                SecurityConfig.none(),
                ClusterConfig.parse("etcd://" + etcd.endpoint())
                        .withTimings(Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofMillis(500)));
        brokers.add(b);
        return b.start();
    }

    private KaasRun assign(EtcdServer etcd, String... args) {
        List<String> all = new ArrayList<>(
                List.of("assign", "--coordinator", "etcd://" + etcd.endpoint(), "--cluster-id", clusterId));
        all.addAll(List.of(args));
        return KaasRun.of(all.toArray(String[]::new));
    }

    @Test
    void aPinnedPartitionMovesAndAProducerFollowsIt(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        // Partition 1, the last: evening out would move it straight back if the controller ignored the pin.
        TopicPartition pinned = new TopicPartition("t", 1);
        TopicPartition other = new TopicPartition("t", 0);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b0.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("t", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        b0.engine().taken().size() == 1 && b1.engine().taken().size() == 1);
        KaasBroker from = b0.engine().taken().containsKey(pinned) ? b0 : b1;
        KaasBroker to = from == b0 ? b1 : b0;
        int toId = to == b0 ? 0 : 1;

        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                from.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class))) {
            RecordMetadata before =
                    producer.send(new ProducerRecord<>("t", 1, null, "before")).get(30, TimeUnit.SECONDS);
            assertThat(before.offset()).isZero();

            KaasRun moved = assign(etcd, "t-1", "--broker", Integer.toString(toId), "--wait");
            assertThat(moved.exitCode()).as(moved.err()).isEqualTo(ExitCodes.OK);
            assertThat(moved.out())
                    .contains("t-1: broker " + (1 - toId) + " -> " + toId + ", pinned")
                    .contains("broker " + toId + " serves t-1");
            assertThat(to.engine().taken()).containsKey(pinned);
            assertThat(from.engine().taken()).doesNotContainKey(pinned);

            // The producer still bootstraps from the old owner: NOT_LEADER_OR_FOLLOWER sends it to the new one.
            RecordMetadata after =
                    producer.send(new ProducerRecord<>("t", 1, null, "after")).get(30, TimeUnit.SECONDS);
            assertThat(after.offset())
                    .as("appended after 'before', by the new owner")
                    .isEqualTo(1);
        }
        // Two partitions on one broker, none on the other: the controller moves the unpinned one, never the pin.
        await().atMost(Duration.ofSeconds(20)).until(() -> from.engine().taken().containsKey(other));
        assertThat(to.engine().taken()).containsOnlyKeys(pinned);
        KaasRun list = assign(etcd, "--list");
        assertThat(list.out()).isEqualTo("t-0\t" + (1 - toId) + "\t-\nt-1\t" + toId + "\t" + toId + "\n");
        assertThat(assign(etcd, "--list", "--json").out())
                .contains("\"topic\":\"t\",\"partition\":1,\"owner\":" + toId + ",\"ownerLive\":true,\"pin\":" + toId);

        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                to.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class))) {
            consumer.assign(List.of(new org.apache.kafka.common.TopicPartition("t", 1)));
            List<String> values = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.offset() + ":" + r.value());
                }
                return values.size() >= 2;
            });
            assertThat(values).containsExactly("0:before", "1:after");
        }

        KaasRun unpinned = assign(etcd, "t-1", "--unpin");
        assertThat(unpinned.exitCode()).as(unpinned.err()).isEqualTo(ExitCodes.OK);
        assertThat(unpinned.out()).contains("t-1: unpinned (on broker " + toId + " until a rebalance moves it)");
        assertThat(assign(etcd, "--list", "t").out()).isEqualTo("t-0\t" + (1 - toId) + "\t-\nt-1\t" + toId + "\t-\n");
    }

    /** A group's coordinator moves with its slot: pinned to the other broker, which then answers FindCoordinator and takes commits. */
    @Test
    void aPinnedCoordinatorSlotMovesTheGroupsCoordinator(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        String group = "assigned-group";
        int slot = io.kaas.broker.group.GroupCoordinator.slotFor(group);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b0.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> commit(admin, group)); // the group exists once it has offsets
            int before = await().atMost(Duration.ofSeconds(20)).until(() -> coordinatorOf(admin, group), id -> id >= 0);
            int target = 1 - before;
            KaasRun moved = assign(etcd, "__consumer_offsets-" + slot, "--broker", Integer.toString(target), "--wait");
            assertThat(moved.exitCode()).as(moved.err()).isEqualTo(ExitCodes.OK);
            assertThat(moved.out())
                    .contains("__consumer_offsets-" + slot + ": broker " + before + " -> " + target + ", pinned");
            await().atMost(Duration.ofSeconds(20)).until(() -> coordinatorOf(admin, group) == target);
            assertThat(commit(admin, group))
                    .as("the new coordinator takes commits")
                    .isTrue();
            assertThat(assign(etcd, "--list", "__consumer_offsets").out())
                    .contains("__consumer_offsets-" + slot + "\t" + target + "\t" + target + "\n");
            assertThat(assign(etcd, "--list").out()).as("slots only when named").doesNotContain("__consumer_offsets");
        }
    }

    private static boolean commit(Admin admin, String group) {
        try {
            admin.alterConsumerGroupOffsets(
                            group,
                            Map.of(
                                    new org.apache.kafka.common.TopicPartition("t", 0),
                                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(0)))
                    .all()
                    .get(10, TimeUnit.SECONDS);
            return true;
        } catch (Exception e) {
            return false; // COORDINATOR_NOT_AVAILABLE while the slot has no holder yet
        }
    }

    private static int coordinatorOf(Admin admin, String group) {
        try {
            return admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(10, TimeUnit.SECONDS)
                    .coordinator()
                    .id();
        } catch (Exception e) {
            return -1; // COORDINATOR_NOT_AVAILABLE while the slot has no holder
        }
    }

    @Test
    void nothingIsWrittenForAPartitionOrBrokerThatIsNotThere(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b0.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("orders-eu", 2, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> b0.engine().taken().size() == 2);
        KaasRun noBroker = assign(etcd, "orders-eu-1", "--broker", "7");
        assertThat(noBroker.exitCode()).isEqualTo(ExitCodes.PROBLEMS);
        assertThat(noBroker.err()).contains("broker 7 is not live (live: [0]); nothing written");
        KaasRun noPartition = assign(etcd, "orders-eu-2", "--broker", "0");
        assertThat(noPartition.exitCode()).isEqualTo(ExitCodes.PROBLEMS);
        assertThat(noPartition.err()).contains("orders-eu-2: no such partition (orders-eu has 2 partitions)");
        assertThat(assign(etcd, "--list").out())
                .as("no pin written")
                .isEqualTo("orders-eu-0\t0\t-\norders-eu-1\t0\t-\n");

        assertThat(assign(etcd, "orders", "--broker", "0").exitCode())
                .as("not TOPIC-N")
                .isEqualTo(ExitCodes.USAGE);
        assertThat(assign(etcd, "--broker", "0").exitCode()).as("no partition").isEqualTo(ExitCodes.USAGE);
        assertThat(assign(etcd, "t-0", "--broker", "0", "--unpin").exitCode())
                .as("two actions")
                .isEqualTo(ExitCodes.USAGE);
        assertThat(KaasRun.of("assign", "--list", "--coordinator", "zk://h:1").exitCode())
                .isEqualTo(ExitCodes.USAGE);
        KaasRun unreachable = KaasRun.of("assign", "--list", "--coordinator", "etcd://127.0.0.1:1");
        assertThat(unreachable.exitCode()).isEqualTo(ExitCodes.UNREADABLE);
    }
}
