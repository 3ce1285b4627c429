package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share groups (KIP-932) with kafka-clients 4.4's KafkaShareConsumer: members sharing one partition,
 * explicit accept / release / reject, the delivery-count limit, a member that closes with records
 * unacknowledged, read_committed over an aborted transaction, and a restart that keeps accepted records
 * accepted. Each test its own topic and group; one broker for the class.
 */
class ShareGroupsIT {
    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() {
        b = new TestBroker(dir.resolve("data"));
    }

    @AfterAll
    static void stop() {
        b.close();
    }

    private static void groupConfigs(String group, Map<String, String> configs) throws Exception {
        try (Admin admin = b.admin()) {
            List<AlterConfigOp> ops = new ArrayList<>();
            configs.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops))
                    .all()
                    .get();
        }
    }

    private static void topic(String name) throws Exception {
        try (Admin admin = b.admin()) {
            admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get();
        }
    }

    private static void produce(String topic, int from, int to) {
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
            for (int i = from; i < to; i++) {
                p.send(new ProducerRecord<>(topic, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            p.flush();
        }
    }

    private static KafkaShareConsumer<String, String> consumer(String group, boolean explicit) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put("share.acknowledgement.mode", explicit ? "explicit" : "implicit");
        return new KafkaShareConsumer<>(p);
    }

    /** Polls until {@code want} records arrived or 30 s passed. */
    private static List<ConsumerRecord<String, String>> pollFor(KafkaShareConsumer<String, String> c, int want) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (out.size() < want && System.nanoTime() < deadline) {
            c.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }

    @Test
    void twoAndThreeMembersOnOnePartitionEachGetDistinctRecords() throws Exception {
        String topic = "share-many";
        topic(topic);
        groupConfigs("many", Map.of("share.auto.offset.reset", "earliest"));
        produce(topic, 0, 300);
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        List<Map<String, Integer>> perMember = new ArrayList<>();
        for (int m = 0; m < 3; m++) {
            Map<String, Integer> mine = new ConcurrentHashMap<>();
            perMember.add(mine);
            Thread t = new Thread(
                    () -> {
                        try (KafkaShareConsumer<String, String> c = consumer("many", false)) {
                            c.subscribe(List.of(topic));
                            while (!stop.get()) {
                                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                                    seen.merge(r.value(), 1, Integer::sum);
                                    mine.merge(r.value(), 1, Integer::sum);
                                }
                            }
                        }
                    },
                    "share-member-" + m);
            threads.add(t);
            t.start();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (seen.size() < 300 && System.nanoTime() < deadline) {
            Thread.sleep(50); // polling the condition with a deadline
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join(30_000);
        }
        assertThat(seen).hasSize(300);
        assertThat(seen.values()).allMatch(n -> n == 1);
        try (Admin admin = b.admin()) {
            assertThat(admin.listGroups(ListGroupsOptions.forShareGroups()).all().get().stream()
                            .map(GroupListing::groupId))
                    .contains("many");
            assertThat(admin.listGroups().all().get().stream()
                            .filter(g -> g.groupId().equals("many"))
                            .map(g -> g.type().orElse(null)))
                    .containsExactly(GroupType.SHARE);
        }
    }

    @Test
    void acceptReleaseRejectAndTheDeliveryCountLimit() throws Exception {
        String topic = "share-acks";
        topic(topic);
        groupConfigs("acks", Map.of("share.auto.offset.reset", "earliest", "share.delivery.count.limit", "2"));
        produce(topic, 0, 3);
        try (KafkaShareConsumer<String, String> c = consumer("acks", true)) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> first = pollFor(c, 3);
            assertThat(first).extracting(ConsumerRecord::value).containsExactly("v0", "v1", "v2");
            assertThat(first).allMatch(r -> r.deliveryCount().orElseThrow() == 1);
            c.acknowledge(first.get(0), AcknowledgeType.ACCEPT);
            c.acknowledge(first.get(1), AcknowledgeType.RELEASE);
            c.acknowledge(first.get(2), AcknowledgeType.REJECT);
            c.commitSync();
            List<ConsumerRecord<String, String>> again = pollFor(c, 1);
            assertThat(again).extracting(ConsumerRecord::value).containsExactly("v1");
            assertThat(again.get(0).deliveryCount()).contains((short) 2);
            c.acknowledge(again.get(0), AcknowledgeType.RELEASE); // the second delivery: the limit archives it
            c.commitSync();
            produce(topic, 3, 4);
            List<ConsumerRecord<String, String>> last = pollFor(c, 1);
            assertThat(last).extracting(ConsumerRecord::value).containsExactly("v3");
            c.acknowledge(last.get(0), AcknowledgeType.ACCEPT);
            c.commitSync();
        }
    }

    @Test
    void aMemberClosedMidBatchLeavesItsRecordsToAnother() throws Exception {
        String topic = "share-close";
        topic(topic);
        groupConfigs("close", Map.of("share.auto.offset.reset", "earliest"));
        produce(topic, 0, 5);
        try (KafkaShareConsumer<String, String> a = consumer("close", true)) {
            a.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> got = pollFor(a, 5);
            assertThat(got).hasSize(5);
            a.acknowledge(got.get(0), AcknowledgeType.ACCEPT);
            a.acknowledge(got.get(1), AcknowledgeType.ACCEPT);
            a.commitSync();
        } // closes with v2..v4 acquired and unacknowledged
        try (KafkaShareConsumer<String, String> c = consumer("close", true)) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> rest = pollFor(c, 3);
            assertThat(rest).extracting(ConsumerRecord::value).containsExactly("v2", "v3", "v4");
            assertThat(rest).allMatch(r -> r.deliveryCount().orElseThrow() == 2);
            rest.forEach(r -> c.acknowledge(r, AcknowledgeType.ACCEPT));
            c.commitSync();
        }
    }

    @Test
    void readCommittedSkipsAnAbortedTransaction() throws Exception {
        String topic = "share-txn";
        topic(topic);
        groupConfigs("txn", Map.of("share.auto.offset.reset", "earliest", "share.isolation.level", "read_committed"));
        Map<String, Object> txn = new HashMap<>();
        txn.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "share-txn-producer");
        try (KafkaProducer<byte[], byte[]> p = b.producer(txn)) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>(topic, "aborted-1".getBytes(StandardCharsets.UTF_8)));
            p.send(new ProducerRecord<>(topic, "aborted-2".getBytes(StandardCharsets.UTF_8)));
            p.flush();
            p.abortTransaction();
            p.beginTransaction();
            p.send(new ProducerRecord<>(topic, "committed".getBytes(StandardCharsets.UTF_8)));
            p.commitTransaction();
        }
        try (KafkaShareConsumer<String, String> c = consumer("txn", false)) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> got = pollFor(c, 1);
            for (int i = 0; i < 5; i++) {
                c.poll(Duration.ofMillis(100)).forEach(got::add);
            }
            assertThat(got).extracting(ConsumerRecord::value).containsExactly("committed");
        }
    }

    @Test
    void anExpiredLockRedeliversToAnotherMember() throws Exception {
        String topic = "share-lock";
        topic(topic);
        // Apache's lowest record lock duration (group.share.min.record.lock.duration.ms).
        groupConfigs("lock", Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms", "15000"));
        produce(topic, 0, 1);
        try (KafkaShareConsumer<String, String> a = consumer("lock", true);
                KafkaShareConsumer<String, String> other = consumer("lock", true)) {
            a.subscribe(List.of(topic));
            assertThat(pollFor(a, 1)).extracting(ConsumerRecord::value).containsExactly("v0");
            other.subscribe(List.of(topic));
            // a keeps polling without acknowledging (explicit mode: nothing is sent for it), so only the lock frees it.
            List<ConsumerRecord<String, String>> redelivered = pollFor(other, 1);
            assertThat(redelivered).extracting(ConsumerRecord::value).containsExactly("v0");
            assertThat(redelivered.get(0).deliveryCount()).contains((short) 2);
            other.acknowledge(redelivered.get(0), AcknowledgeType.ACCEPT);
            other.commitSync();
        }
    }

    @Test
    void acceptedRecordsStayAcceptedAcrossARestart() throws Exception {
        String topic = "share-restart";
        topic(topic);
        groupConfigs("restart", Map.of("share.auto.offset.reset", "earliest"));
        produce(topic, 0, 6);
        try (KafkaShareConsumer<String, String> c = consumer("restart", true)) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> got = pollFor(c, 6);
            assertThat(got).hasSize(6);
            for (int i = 0; i < 3; i++) {
                c.acknowledge(got.get(i), AcknowledgeType.ACCEPT);
            }
            c.acknowledge(got.get(3), AcknowledgeType.RELEASE);
            c.commitSync();
        }
        b.restart();
        try (KafkaShareConsumer<String, String> c = consumer("restart", true)) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> rest = pollFor(c, 3);
            assertThat(rest).extracting(ConsumerRecord::value).containsExactly("v3", "v4", "v5");
            assertThat(rest.get(0).deliveryCount()).contains((short) 2);
            rest.forEach(r -> c.acknowledge(r, AcknowledgeType.ACCEPT));
            c.commitSync();
        }
    }

    private static ExternalProcess shareGroups(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", b.bootstrap()));
        all.addAll(List.of(args));
        ExternalProcess p = ExternalProcess.java(
                dir, null, "org.apache.kafka.tools.consumer.group.ShareGroupCommand", all.toArray(String[]::new));
        assertThat(p.exitCode()).as("kafka-share-groups %s%n%s", all, p).isZero();
        return p;
    }

    @Test
    void kafkaShareGroupsDescribesResetsAndDeletesOffsets() throws Exception {
        String topic = "share-tool";
        topic(topic);
        groupConfigs("tool", Map.of("share.auto.offset.reset", "earliest"));
        produce(topic, 0, 4);
        try (KafkaShareConsumer<String, String> c = consumer("tool", true)) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> got = pollFor(c, 4);
            assertThat(got).hasSize(4);
            got.forEach(r -> c.acknowledge(r, AcknowledgeType.ACCEPT));
            c.commitSync();
        }
        java.util.regex.Pattern started = java.util.regex.Pattern.compile("share-tool\\s+0\\s+4\\s+0");
        assertThat(shareGroups("--describe", "--group", "tool").out()).containsPattern(started);
        shareGroups("--reset-offsets", "--group", "tool", "--topic", topic, "--to-earliest", "--execute");
        try (KafkaShareConsumer<String, String> c = consumer("tool", true)) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> again = pollFor(c, 4);
            assertThat(again).extracting(ConsumerRecord::value).containsExactly("v0", "v1", "v2", "v3");
            again.forEach(r -> c.acknowledge(r, AcknowledgeType.ACCEPT));
            c.commitSync();
        }
        shareGroups("--delete-offsets", "--group", "tool", "--topic", topic);
        assertThat(shareGroups("--describe", "--group", "tool").out()).doesNotContainPattern(started);
    }

    @Test
    void kafkaShareGroupsDeletesAnEmptyGroupWithItsState() throws Exception {
        String topic = "share-delete";
        topic(topic);
        groupConfigs("del", Map.of("share.auto.offset.reset", "earliest"));
        produce(topic, 0, 3);
        try (KafkaShareConsumer<String, String> c = consumer("del", true)) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> got = pollFor(c, 3);
            assertThat(got).hasSize(3);
            got.forEach(r -> c.acknowledge(r, AcknowledgeType.ACCEPT));
            c.commitSync();
        }
        Path state = b.dataDir().resolve("__cluster/share_groups/del.json");
        assertThat(state).exists();
        assertThat(shareGroups("--delete", "--group", "del").out()).contains("successful");
        assertThat(state).doesNotExist();
        assertThat(shareGroups("--list").out()).doesNotContainPattern("(?m)^del$");
        // The group starts over: everything is delivered again, for the first time.
        try (KafkaShareConsumer<String, String> c = consumer("del", true)) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> again = pollFor(c, 3);
            assertThat(again).extracting(ConsumerRecord::value).containsExactly("v0", "v1", "v2");
            assertThat(again).allSatisfy(r -> assertThat(r.deliveryCount()).contains((short) 1));
            again.forEach(r -> c.acknowledge(r, AcknowledgeType.ACCEPT));
            c.commitSync();
        }
    }

    @Test
    void aShareGroupIdAndAConsumerGroupIdCannotCollide() throws Exception {
        String topic = "share-collide";
        topic(topic);
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "collide-cg"))) {
            c.assign(List.of(new TopicPartition(topic, 0)));
            c.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0)));
        }
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort())) {
            ShareGroupHeartbeatResponseData onConsumerGroup =
                    raw.roundTrip(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, shareJoin("collide-cg", "m1", 0, topic));
            assertThat(Errors.forCode(onConsumerGroup.errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
            assertThat(onConsumerGroup.errorMessage()).isEqualTo("Group collide-cg is not a share group.");

            ShareGroupHeartbeatResponseData joined =
                    raw.roundTrip(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, shareJoin("collide-share", "m2", 0, topic));
            assertThat(Errors.forCode(joined.errorCode())).isEqualTo(Errors.NONE);
            ConsumerGroupHeartbeatResponseData consumerOnShare = raw.roundTrip(
                    ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                    (short) 0,
                    new ConsumerGroupHeartbeatRequestData()
                            .setGroupId("collide-share")
                            .setMemberId("m3")
                            .setMemberEpoch(0)
                            .setRebalanceTimeoutMs(30_000)
                            .setSubscribedTopicNames(List.of(topic))
                            .setTopicPartitions(List.of()));
            assertThat(Errors.forCode(consumerOnShare.errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
            assertThat(consumerOnShare.errorMessage()).isEqualTo("Group collide-share is not a consumer group.");
            org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData streamsOnShare = raw.roundTrip(
                    ApiKeys.STREAMS_GROUP_HEARTBEAT,
                    (short) 1,
                    new org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData()
                            .setGroupId("collide-share")
                            .setMemberId("m4")
                            .setMemberEpoch(0)
                            .setRebalanceTimeoutMs(30_000)
                            .setProcessId("p4")
                            .setTopology(new org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData.Topology()
                                    .setEpoch(0)
                                    .setSubtopologies(List.of()))
                            .setActiveTasks(List.of())
                            .setStandbyTasks(List.of())
                            .setWarmupTasks(List.of()));
            assertThat(Errors.forCode(streamsOnShare.errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
            assertThat(streamsOnShare.errorMessage()).isEqualTo("Group collide-share is not a streams group.");
            JoinGroupResponseData classicOnShare = raw.roundTrip(
                    ApiKeys.JOIN_GROUP,
                    (short) 9,
                    new JoinGroupRequestData()
                            .setGroupId("collide-share")
                            .setMemberId("")
                            .setSessionTimeoutMs(10_000)
                            .setRebalanceTimeoutMs(10_000)
                            .setProtocolType("consumer")
                            .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(
                                    List.of(new JoinGroupRequestData.JoinGroupRequestProtocol()
                                                    .setName("range")
                                                    .setMetadata(new byte[0]))
                                            .iterator())));
            assertThat(Errors.forCode(classicOnShare.errorCode())).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
            ShareGroupHeartbeatResponseData left =
                    raw.roundTrip(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, shareJoin("collide-share", "m2", -1, null));
            assertThat(Errors.forCode(left.errorCode())).isEqualTo(Errors.NONE);
        }
    }

    @Test
    void theOffsetAndDescribeApisAnswerAShareGroupIdAsApache() throws Exception {
        String topic = "share-other-apis";
        String group = "share-other-apis";
        topic(topic);
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort())) {
            ShareGroupHeartbeatResponseData joined =
                    raw.roundTrip(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, shareJoin(group, "m1", 0, topic));
            assertThat(Errors.forCode(joined.errorCode())).isEqualTo(Errors.NONE);

            OffsetCommitResponseData commit = raw.roundTrip(
                    ApiKeys.OFFSET_COMMIT,
                    (short) 9,
                    new OffsetCommitRequestData()
                            .setGroupId(group)
                            .setGenerationIdOrMemberEpoch(-1)
                            .setMemberId("")
                            .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                                    .setName(topic)
                                    .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                            .setPartitionIndex(0)
                                            .setCommittedOffset(5))))));
            assertThat(commit.topics().get(0).partitions())
                    .singleElement()
                    .satisfies(pr -> assertThat(Errors.forCode(pr.errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND));

            OffsetFetchResponseData fetched = raw.roundTrip(
                    ApiKeys.OFFSET_FETCH,
                    (short) 8,
                    new OffsetFetchRequestData()
                            .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                    .setGroupId(group)
                                    .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                            .setName(topic)
                                            .setPartitionIndexes(List.of(0)))))));
            OffsetFetchResponseData.OffsetFetchResponseGroup fg =
                    fetched.groups().get(0);
            assertThat(Errors.forCode(fg.errorCode())).isEqualTo(Errors.NONE);
            assertThat(fg.topics().get(0).partitions()).singleElement().satisfies(pr -> {
                assertThat(pr.committedOffset()).isEqualTo(-1L);
                assertThat(Errors.forCode(pr.errorCode())).isEqualTo(Errors.NONE);
            });

            DescribeGroupsResponseData v5 = raw.roundTrip(
                    ApiKeys.DESCRIBE_GROUPS, (short) 5, new DescribeGroupsRequestData().setGroups(List.of(group)));
            assertThat(v5.groups().get(0).groupState()).isEqualTo("Dead");
            assertThat(Errors.forCode(v5.groups().get(0).errorCode())).isEqualTo(Errors.NONE);
            DescribeGroupsResponseData v6 = raw.roundTrip(
                    ApiKeys.DESCRIBE_GROUPS, (short) 6, new DescribeGroupsRequestData().setGroups(List.of(group)));
            assertThat(v6.groups().get(0).groupState()).isEqualTo("Dead");
            assertThat(Errors.forCode(v6.groups().get(0).errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
            assertThat(v6.groups().get(0).errorMessage()).isEqualTo("Group " + group + " is not a classic group.");

            ConsumerGroupDescribeResponseData described = raw.roundTrip(
                    ApiKeys.CONSUMER_GROUP_DESCRIBE,
                    (short) 0,
                    new ConsumerGroupDescribeRequestData().setGroupIds(List.of(group)));
            assertThat(Errors.forCode(described.groups().get(0).errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
            assertThat(described.groups().get(0).errorMessage())
                    .isEqualTo("Group " + group + " is not a consumer group.");

            // The refused commit made no group of another type: another share member still joins.
            ShareGroupHeartbeatResponseData second =
                    raw.roundTrip(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, shareJoin(group, "m2", 0, topic));
            assertThat(Errors.forCode(second.errorCode())).isEqualTo(Errors.NONE);
            raw.roundTrip(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, shareJoin(group, "m1", -1, null));
            raw.roundTrip(ApiKeys.SHARE_GROUP_HEARTBEAT, (short) 1, shareJoin(group, "m2", -1, null));
        }
    }

    private static ShareGroupHeartbeatRequestData shareJoin(String group, String member, int epoch, String topic) {
        return new ShareGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(member)
                .setMemberEpoch(epoch)
                .setSubscribedTopicNames(topic == null ? null : List.of(topic));
    }
}
