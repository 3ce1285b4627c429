package io.kaas.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.cli.KaasRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DeleteRecordsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash harness: {@code kaas serve} as a real process over two log dirs, idempotent acks=all producers over
 * three partitions, a consumer group committing offsets, and {@code kill -9} at random moments (mid-append and
 * around segment rolls with 16 KiB segments, during DeleteRecords, during a move of a partition to the other log
 * dir (AlterReplicaLogDirs), during a clean shutdown). After each restart every acknowledged record must be there
 * exactly once, in order, at its offset; offsets contiguous; log start at or past every acknowledged
 * DeleteRecords; committed offsets intact; each partition in exactly one log dir, no move's copy left; and
 * {@code kaas verify} finds the pool clean (after each recovery, and after the final shutdown).
 * {@code -Dkaas.crash.cycles=N} for a long soak,
 * {@code -Dkaas.crash.seed=S} to replay one.
 */
class CrashHarnessIT {
    private static final String TOPIC = "crash";
    private static final int PARTITIONS = 3;
    private static final String GROUP = "crash-group";

    enum KillMoment {
        MID_APPEND,
        DURING_DELETE_RECORDS,
        DURING_LOG_DIR_MOVE,
        DURING_SHUTDOWN
    }

    /** What the broker acknowledged: partition → offset → value; acknowledged log starts; committed offsets. */
    private final Map<Integer, ConcurrentSkipListMap<Long, String>> acked = new HashMap<>();

    private final Map<Integer, Long> purgedBefore = new HashMap<>();
    private final Map<Integer, Long> committed = new HashMap<>();
    /** Acknowledgement checks passed (an acknowledged record is checked again after every later crash). */
    private long verified;

    private long faults;

    /** Kills injected per moment, so a run's summary shows that each moment was hit. */
    private final Map<KillMoment, Integer> killsByMoment = new java.util.EnumMap<>(KillMoment.class);

    @Test
    void acknowledgedRecordsSurviveKillNineAtRandomMoments(@TempDir Path dir) throws Exception {
        int cycles = Integer.getInteger("kaas.crash.cycles", 20);
        long seed = Long.getLong("kaas.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path data = dir.resolve("data");
        Path data2 = dir.resolve("data2");
        String pool = data + "," + data2;
        for (int p = 0; p < PARTITIONS; p++) {
            acked.put(p, new ConcurrentSkipListMap<>());
        }
        for (int cycle = 0; cycle < cycles; cycle++) {
            String context = "cycle " + cycle + " (seed " + seed + ")";
            try (BrokerProcess broker =
                    BrokerProcess.start(data, dir.resolve("serve-" + cycle + ".log"), 16 * 1024, "--log-dirs", pool)) {
                if (cycle == 0) {
                    try (Admin admin = Admin.create(CrashClients.admin(broker))) {
                        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                                .all()
                                .get(30, TimeUnit.SECONDS);
                    }
                }
                verifyEverything(broker, context);
                assertOneCopyEach(data, data2, context);
                // Recovered and idle (the checks above opened every partition): the files must verify clean.
                assertVerifyClean(pool, context);
                driveAndKill(broker, cycle, random, context, data, data2);
                faults++;
            }
        }
        try (BrokerProcess broker =
                BrokerProcess.start(data, dir.resolve("serve-final.log"), 16 * 1024, "--log-dirs", pool)) {
            verifyEverything(broker, "after the last kill (seed " + seed + ")");
            assertOneCopyEach(data, data2, "after the last kill (seed " + seed + ")");
            broker.stop();
        }
        assertVerifyClean(pool, "after the final clean shutdown (seed " + seed + ")");
        long acknowledged = acked.values().stream().mapToLong(Map::size).sum();
        System.out.printf(
                "crash: %d cycles, %d records acknowledged and verified (%d checks across restarts), %d faults injected"
                        + " (kill -9: %s), seed %d%n",
                cycles, acknowledged, verified, faults, killsByMoment, seed);
    }

    private static void assertVerifyClean(String pool, String context) {
        KaasRun verify = KaasRun.of("verify", "--log-dirs", pool);
        assertThat(verify.exitCode())
                .as("kaas verify --log-dirs %s, %s:%n%s%s", pool, context, verify.out(), verify.err())
                .isZero();
    }

    /** After a start (which finished or rolled back any move a kill interrupted): one copy of each partition. */
    private static void assertOneCopyEach(Path data, Path data2, String context) throws Exception {
        for (int p = 0; p < PARTITIONS; p++) {
            int copies = 0;
            for (Path d : List.of(data, data2)) {
                Path topic = d.resolve(TOPIC);
                copies += java.nio.file.Files.isDirectory(topic.resolve(Integer.toString(p))) ? 1 : 0;
                assertThat(topic.resolve(p + ".future"))
                        .as("%s: a move's copy left", context)
                        .doesNotExist();
                assertThat(topic.resolve(p + ".moved"))
                        .as("%s: a moved partition's old copy", context)
                        .doesNotExist();
            }
            assertThat(copies).as("%s: copies of %s-%d", context, TOPIC, p).isEqualTo(1);
        }
    }

    /** Asks for a move of one partition to the log dir it is not in. */
    private static void moveToTheOtherDir(Admin admin, Random random, Path data, Path data2) throws Exception {
        int partition = random.nextInt(PARTITIONS);
        String to = java.nio.file.Files.isDirectory(data.resolve(TOPIC).resolve(Integer.toString(partition)))
                ? data2.toAbsolutePath().toString()
                : data.toAbsolutePath().toString();
        admin.alterReplicaLogDirs(Map.of(new org.apache.kafka.common.TopicPartitionReplica(TOPIC, partition, 0), to))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    /** Produces (and commits, and maybe purges) until a random moment, then kills the broker. */
    private void driveAndKill(BrokerProcess broker, int cycle, Random random, String context, Path data, Path data2)
            throws Exception {
        KillMoment moment = KillMoment.values()[random.nextInt(KillMoment.values().length)];
        killsByMoment.merge(moment, 1, Integer::sum);
        AtomicLong acks = new AtomicLong();
        Semaphore inFlight = new Semaphore(100);
        long target = 20 + random.nextInt(150);
        long more = target + random.nextInt(100);
        // A bounded cycle keeps CI short; the sender still has batches in flight when the kill lands.
        long limit = more + 100;
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(broker));
        Thread sender = new Thread(
                () -> {
                    long n = 0;
                    try {
                        while (!Thread.currentThread().isInterrupted() && n < limit) {
                            inFlight.acquire();
                            int partition = (int) (n % PARTITIONS);
                            String value = "c" + cycle + "-" + n++;
                            producer.send(new ProducerRecord<>(TOPIC, partition, null, value), (md, e) -> {
                                inFlight.release();
                                if (e == null) {
                                    acked.get(md.partition()).put(md.offset(), value);
                                    acks.incrementAndGet();
                                }
                            });
                        }
                    } catch (InterruptedException | RuntimeException stopped) {
                        // the kill, or the producer closing under us
                    }
                },
                "crash-producer-" + cycle);
        try {
            sender.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> acks.get() >= target);
            commitSomeOffsets(broker, random);
            switch (moment) {
                case MID_APPEND -> {
                    await().atMost(Duration.ofSeconds(60)).until(() -> acks.get() >= more);
                    broker.kill();
                }
                case DURING_DELETE_RECORDS -> {
                    Admin admin = Admin.create(CrashClients.admin(broker));
                    try {
                        int partition = random.nextInt(PARTITIONS);
                        Long upTo = pickAckedOffset(partition, random);
                        if (upTo == null) {
                            broker.kill();
                        } else {
                            DeleteRecordsResult r = admin.deleteRecords(
                                    Map.of(new TopicPartition(TOPIC, partition), RecordsToDelete.beforeOffset(upTo)));
                            if (random.nextBoolean()) {
                                // An acknowledged purge, then the kill.
                                r.all().get(30, TimeUnit.SECONDS);
                                purgedBefore.merge(partition, upTo, Math::max);
                                broker.kill();
                            } else {
                                broker.kill(); // racing the purge: it may or may not have happened
                                if (r.all().isDone() && !r.all().isCompletedExceptionally()) {
                                    purgedBefore.merge(partition, upTo, Math::max);
                                }
                            }
                        }
                    } finally {
                        // The broker is dead by now. A plain close() would wait out a still pending DeleteRecords
                        // call (up to default.api.timeout.ms) while the client rebootstraps against the dead
                        // port in a tight loop, hundreds of thousands of log lines; close now and fail it.
                        admin.close(Duration.ZERO);
                    }
                }
                case DURING_LOG_DIR_MOVE -> {
                    try (Admin admin = Admin.create(CrashClients.admin(broker))) {
                        moveToTheOtherDir(admin, random, data, data2);
                        // The move copies, switches and removes while the sender goes on: the kill lands anywhere.
                        // The sender stops at its limit, so the kill point is capped there; reaching it also
                        // shows that acks=all produce kept going while the partition moved.
                        long killAt = Math.min(limit, acks.get() + random.nextInt(60));
                        await().atMost(Duration.ofSeconds(60)).until(() -> acks.get() >= killAt);
                        broker.kill();
                    }
                }
                case DURING_SHUTDOWN -> broker.stopThenKillAfter(random.nextInt(300));
            }
        } catch (Throwable t) {
            throw new AssertionError(context + ": " + moment + " failed", t);
        } finally {
            broker.kill();
            sender.interrupt();
            producer.close(Duration.ZERO);
            sender.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    private Long pickAckedOffset(int partition, Random random) {
        ConcurrentSkipListMap<Long, String> offsets = acked.get(partition);
        if (offsets.isEmpty()) {
            return null;
        }
        long first = Math.max(offsets.firstKey(), purgedBefore.getOrDefault(partition, 0L));
        long last = offsets.lastKey();
        return first >= last ? last : first + (long) (random.nextDouble() * (last - first));
    }

    private void commitSomeOffsets(BrokerProcess broker, Random random) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            Long at = pickAckedOffset(p, random);
            if (at != null) {
                offsets.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(at));
            }
        }
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(CrashClients.consumer(broker, GROUP, "read_uncommitted"))) {
            consumer.commitSync(offsets, Duration.ofSeconds(30));
        }
        offsets.forEach((tp, o) -> committed.put(tp.partition(), o.offset()));
    }

    /** Reads every partition from its log start and holds it to every acknowledgement so far. */
    private void verifyEverything(BrokerProcess broker, String context) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            tps.add(new TopicPartition(TOPIC, p));
        }
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(CrashClients.consumer(broker, GROUP, "read_uncommitted"))) {
            Map<TopicPartition, OffsetAndMetadata> commits =
                    consumer.committed(new HashSet<>(tps), Duration.ofSeconds(30));
            for (TopicPartition tp : tps) {
                Long want = committed.get(tp.partition());
                OffsetAndMetadata got = commits.get(tp);
                assertThat(got == null ? null : got.offset())
                        .as("%s: committed offset of %s", context, tp)
                        .isEqualTo(want);
            }
            consumer.assign(tps);
            Map<TopicPartition, Long> starts = consumer.beginningOffsets(tps, Duration.ofSeconds(30));
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(30));
            consumer.seekToBeginning(tps);
            Map<TopicPartition, List<ConsumerRecord<String, String>>> read = new HashMap<>();
            tps.forEach(tp -> read.put(tp, new ArrayList<>()));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                consumer.poll(Duration.ofMillis(100))
                        .forEach(r -> read.get(new TopicPartition(r.topic(), r.partition()))
                                .add(r));
                return tps.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
            });
            for (TopicPartition tp : tps) {
                long start = starts.get(tp);
                assertThat(start)
                        .as("%s: log start of %s below an acknowledged DeleteRecords", context, tp)
                        .isGreaterThanOrEqualTo(purgedBefore.getOrDefault(tp.partition(), 0L));
                TreeMap<Long, String> log = new TreeMap<>();
                Set<String> values = new HashSet<>();
                long expected = start;
                for (ConsumerRecord<String, String> r : read.get(tp)) {
                    assertThat(r.offset())
                            .as("%s: %s offsets contiguous", context, tp)
                            .isEqualTo(expected);
                    assertThat(values.add(r.value()))
                            .as("%s: %s holds %s twice", context, tp, r.value())
                            .isTrue();
                    log.put(r.offset(), r.value());
                    expected = r.offset() + 1;
                }
                assertThat(expected)
                        .as("%s: %s read up to its end offset", context, tp)
                        .isEqualTo(ends.get(tp));
                for (Map.Entry<Long, String> a :
                        acked.get(tp.partition()).tailMap(start).entrySet()) {
                    assertThat(log.get(a.getKey()))
                            .as("%s: acknowledged %s at %s offset %d", context, a.getValue(), tp, a.getKey())
                            .isEqualTo(a.getValue());
                    verified++;
                }
            }
        }
    }

    private static Properties producerProps(BrokerProcess broker) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return p;
    }
}
