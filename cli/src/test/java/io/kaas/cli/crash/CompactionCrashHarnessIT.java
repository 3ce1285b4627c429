package io.kaas.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.cli.KaasRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash harness with the cleaner running: {@code kaas serve} as a real process compacting a
 * cleanup.policy=compact topic (16 KiB segments, min.cleanable.dirty.ratio 0.01, a 20 ms backoff, so
 * passes and swaps run all the time) while an idempotent acks=all producer overwrites 40 keys, and
 * {@code kill -9} at a random moment. After each restart: every record read sits at the offset it was
 * acknowledged at with the value acknowledged there; each key's last record is at or past its latest
 * acknowledged offset (so no key lost its latest value); offsets increase; {@code kaas verify} is clean.
 * {@code -Dkaas.crash.cycles=N} for a long soak, {@code -Dkaas.crash.seed=S} to replay one.
 */
class CompactionCrashHarnessIT {
    private static final String TOPIC = "table";
    private static final int PARTITIONS = 2;
    private static final int KEYS = 40;
    private static final String[] CLEANER = {"--log-cleaner-threads", "1", "--log-cleaner-backoff-ms", "20"};

    /** Partition → offset → key=value, for every acknowledged record. */
    private final Map<Integer, Map<Long, String>> acked = new HashMap<>();

    @Test
    void noKeyLosesItsLatestValueWhenKillNineLandsDuringCleaning(@TempDir Path dir) throws Exception {
        int cycles = Integer.getInteger("kaas.crash.cycles", 6);
        long seed = Long.getLong("kaas.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path data = dir.resolve("data");
        for (int p = 0; p < PARTITIONS; p++) {
            acked.put(p, new ConcurrentHashMap<>());
        }
        long cleanedBytes = 0;
        for (int cycle = 0; cycle < cycles; cycle++) {
            String context = "cycle " + cycle + " (seed " + seed + ")";
            try (BrokerProcess broker =
                    BrokerProcess.start(data, dir.resolve("serve-" + cycle + ".log"), 16 * 1024, CLEANER)) {
                if (cycle == 0) {
                    try (Admin admin = Admin.create(CrashClients.admin(broker))) {
                        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)
                                        .configs(Map.of(
                                                "cleanup.policy",
                                                "compact",
                                                "min.cleanable.dirty.ratio",
                                                "0.01",
                                                "delete.retention.ms",
                                                "100"))))
                                .all()
                                .get(30, TimeUnit.SECONDS);
                    }
                }
                verifyEverything(broker, context);
                assertVerifyClean(data, context);
                driveAndKill(broker, cycle, random, context);
            }
        }
        try (BrokerProcess broker = BrokerProcess.start(data, dir.resolve("serve-final.log"), 16 * 1024, CLEANER)) {
            long read = verifyEverything(broker, "after the last kill (seed " + seed + ")");
            broker.stop();
            long acknowledged = acked.values().stream().mapToLong(Map::size).sum();
            assertThat(read)
                    .as("the cleaner removed records (read back %d of %d acknowledged)", read, acknowledged)
                    .isLessThan(acknowledged);
            System.out.printf(
                    "compaction crash: %d cycles, %d records acknowledged, %d left after cleaning, seed %d%n",
                    cycles, acknowledged, read, seed);
        }
        assertVerifyClean(data, "after the final clean shutdown (seed " + seed + ")");
    }

    private static void assertVerifyClean(Path data, String context) {
        KaasRun verify = KaasRun.of("verify", data.toString());
        assertThat(verify.exitCode())
                .as("kaas verify %s, %s:%n%s%s", data, context, verify.out(), verify.err())
                .isZero();
    }

    /** Reads every partition from the start; returns the records read. */
    private long verifyEverything(BrokerProcess broker, String context) {
        long read = 0;
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(CrashClients.consumer(broker, null, "read_uncommitted"))) {
            for (int p = 0; p < PARTITIONS; p++) {
                TopicPartition tp = new TopicPartition(TOPIC, p);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long end =
                        consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
                Map<String, Long> last = new HashMap<>();
                long previous = -1;
                while (consumer.position(tp, Duration.ofSeconds(30)) < end) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        assertThat(r.offset())
                                .as("%s: offsets increase", context)
                                .isGreaterThan(previous);
                        previous = r.offset();
                        String ackedThere = acked.get(p).get(r.offset());
                        if (ackedThere != null) {
                            assertThat(r.key() + "=" + r.value())
                                    .as("%s: partition %d offset %d", context, p, r.offset())
                                    .isEqualTo(ackedThere);
                        }
                        last.put(r.key(), r.offset());
                        read++;
                    }
                }
                Map<String, Long> latestAcked = new HashMap<>();
                acked.get(p)
                        .forEach(
                                (offset, kv) -> latestAcked.merge(kv.substring(0, kv.indexOf('=')), offset, Math::max));
                int partition = p;
                latestAcked.forEach((key, offset) -> assertThat(last.get(key))
                        .as(
                                "%s: partition %d key %s: its latest acknowledged record (offset %d) or a later one",
                                context, partition, key, offset)
                        .isNotNull()
                        .isGreaterThanOrEqualTo(offset));
            }
        }
        return read;
    }

    /** Overwrites the keys until a random number of acknowledgements, then kills the broker mid-flight. */
    private void driveAndKill(BrokerProcess broker, int cycle, Random random, String context) throws Exception {
        AtomicLong acks = new AtomicLong();
        Semaphore inFlight = new Semaphore(100);
        long target = 300 + random.nextInt(900);
        long limit = target + 1_000;
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(broker));
        Thread sender = new Thread(
                () -> {
                    long n = 0;
                    try {
                        while (!Thread.currentThread().isInterrupted() && n < limit) {
                            inFlight.acquire();
                            int partition = (int) (n % PARTITIONS);
                            String key = "k" + random.nextInt(KEYS);
                            String value = "c" + cycle + "-" + n++ + "-" + "x".repeat(200);
                            producer.send(new ProducerRecord<>(TOPIC, partition, key, value), (md, e) -> {
                                inFlight.release();
                                if (e == null) {
                                    acked.get(md.partition()).put(md.offset(), key + "=" + value);
                                    acks.incrementAndGet();
                                }
                            });
                        }
                    } catch (InterruptedException | RuntimeException stopped) {
                        // the kill, or the producer closing under us
                    }
                },
                "compaction-crash-producer-" + cycle);
        try {
            sender.start();
            await().atMost(Duration.ofSeconds(120)).until(() -> acks.get() >= target);
            broker.kill();
        } catch (Throwable t) {
            throw new AssertionError(context + ": driving the producer failed", t);
        } finally {
            broker.kill();
            sender.interrupt();
            producer.close(Duration.ZERO);
            sender.join(TimeUnit.SECONDS.toMillis(30));
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
