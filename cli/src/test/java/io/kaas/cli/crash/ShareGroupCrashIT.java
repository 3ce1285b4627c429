package io.kaas.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.cli.KaasRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share groups (KIP-932) under {@code kill -9}: {@code kaas serve} as a real process, two {@code KafkaShareConsumer}s
 * in explicit acknowledgement mode accepting (now and then releasing) what they get and committing with
 * {@code commitSync}; when a kill is due, the next consumer to get records holds them unacknowledged and the broker is
 * killed. The invariants, across every restart: a record whose acceptance was answered is never delivered again; a
 * record delivered again carries a delivery count above the one it was last delivered with (an acquisition is durable
 * before it is answered, so a crash never hands it out as new); every record held at a kill is delivered again; every
 * produced record is eventually accepted (or was accepted by a commit the kill left unanswered and is never delivered
 * again); and {@code kaas verify} finds the data dir, share state files included, clean after each recovery.
 * {@code -Dkaas.share.crash.cycles=N}, {@code -Dkaas.crash.seed=S} to replay one.
 */
class ShareGroupCrashIT {
    private static final String TOPIC = "share-crash";
    private static final String GROUP = "share-crash-group";
    private static final int PARTITIONS = 2;
    private static final int CONSUMERS = 2;

    /** Produced values; those whose acceptance was answered; the delivery count each value was last seen with. */
    private final Set<String> produced = ConcurrentHashMap.newKeySet();

    private final Set<String> accepted = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> lastDeliveryCount = new ConcurrentHashMap<>();
    private final Set<String> released = ConcurrentHashMap.newKeySet();
    private final AtomicLong redeliveredAfterKill = new AtomicLong();
    private final AtomicLong redeliveredAfterRelease = new AtomicLong();
    private final AtomicReference<String> violation = new AtomicReference<>();
    /**
     * Set when a kill is due: the next consumer to get records holds them unacknowledged, says so, and waits for the
     * kill; so every kill lands while acquired records are out (they must come back, counted once more).
     */
    private final AtomicReference<CountDownLatch> holdForKill = new AtomicReference<>();

    private final AtomicReference<CountDownLatch> killed = new AtomicReference<>();
    /** Values held unacknowledged at a kill, with the delivery count they were held with. */
    private final Map<String, Integer> heldAtKill = new ConcurrentHashMap<>();
    /**
     * Acceptances whose commit the kill left unanswered: durable or not, nobody knows; such a record is either
     * delivered again (then it was not) or never again.
     */
    private final Set<String> uncertain = ConcurrentHashMap.newKeySet();

    @Test
    void acceptedRecordsAreNeverRedeliveredAndAcquiredOnesComeBackCounted(@TempDir Path dir) throws Exception {
        int cycles = Integer.getInteger("kaas.share.crash.cycles", 6);
        long seed = Long.getLong("kaas.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path data = dir.resolve("data");
        for (int cycle = 0; cycle < cycles; cycle++) {
            String context = "cycle " + cycle + " (seed " + seed + ")";
            try (BrokerProcess broker = BrokerProcess.start(data, dir.resolve("serve-" + cycle + ".log"), 1 << 20)) {
                if (cycle == 0) {
                    setUp(broker);
                }
                produce(broker, cycle, 100 + random.nextInt(200));
                // Recovered, partitions opened by the produce, the share state as the last kill left it.
                assertVerifyClean(data, context);
                consumeThenKill(broker, random, context);
            }
            assertThat(violation.get()).as(context).isNull();
        }
        try (BrokerProcess broker = BrokerProcess.start(data, dir.resolve("serve-final.log"), 1 << 20)) {
            AtomicBoolean stop = new AtomicBoolean();
            Thread t = consumerThread(broker, 0, new Random(seed), stop);
            t.start();
            try {
                await().atMost(Duration.ofSeconds(120)).until(() -> violation.get() != null || settled());
            } finally {
                stop.set(true);
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertThat(violation.get())
                    .as("after the last kill (seed %d)", seed)
                    .isNull();
            assertThat(settled())
                    .as("every produced record accepted (seed %d)", seed)
                    .isTrue();
            // Each kill landed while a consumer held records it had seen: each came back, counted once more.
            heldAtKill.forEach((v, count) -> assertThat(lastDeliveryCount.get(v))
                    .as("%s, held at a kill with delivery count %d, delivered again (seed %d)", v, count, seed)
                    .isGreaterThan(count));
            broker.stop();
        }
        assertVerifyClean(data, "after the final clean shutdown (seed " + seed + ")");
        System.out.printf(
                "share crash: %d cycles, %d records accepted once each (%d more by a commit the kill left unanswered);"
                        + " delivered again, each with a higher delivery count: %d after a kill -9 (%d held at the"
                        + " kills), %d after a release; seed %d%n",
                cycles,
                accepted.size(),
                uncertain.size(),
                redeliveredAfterKill.get(),
                heldAtKill.size(),
                redeliveredAfterRelease.get(),
                seed);
    }

    /** Every produced record accepted, or accepted by a commit the kill left unanswered and not delivered since. */
    private boolean settled() {
        for (String v : produced) {
            if (!accepted.contains(v) && !uncertain.contains(v)) {
                return false;
            }
        }
        return true;
    }

    private static void setUp(BrokerProcess broker) throws Exception {
        try (Admin admin = Admin.create(CrashClients.admin(broker))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            List<AlterConfigOp> ops = new ArrayList<>();
            Map.of("share.auto.offset.reset", "earliest", "share.delivery.count.limit", "10")
                    .forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, GROUP), ops))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** Produces {@code n} records, every one acknowledged before the consumers start (so they are the produced set). */
    private void produce(BrokerProcess broker, int cycle, int n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String value = "c" + cycle + "-" + i;
                sent.add(producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value)));
                produced.add(value);
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Two members consume; after a random number of answered acceptances the broker is killed. */
    private void consumeThenKill(BrokerProcess broker, Random random, String context) throws Exception {
        long base = accepted.size();
        long killAfter = base + 20 + random.nextInt(200);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CONSUMERS; c++) {
            threads.add(consumerThread(broker, c, new Random(random.nextLong()), stop));
        }
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch kill = new CountDownLatch(1);
        killed.set(kill);
        threads.forEach(Thread::start);
        try {
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> violation.get() != null || accepted.size() >= killAfter || settled());
            holdForKill.set(holding);
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> violation.get() != null || holding.getCount() == 0 || settled());
        } catch (Throwable t) {
            throw new AssertionError(context + ": consumption stalled at " + accepted.size(), t);
        } finally {
            broker.kill();
            holdForKill.set(null);
            kill.countDown();
            stop.set(true);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
        }
    }

    private Thread consumerThread(BrokerProcess broker, int n, Random random, AtomicBoolean stop) {
        return new Thread(
                () -> {
                    KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props(broker));
                    try {
                        consumer.subscribe(List.of(TOPIC));
                        while (!stop.get()) {
                            consumeOnce(consumer, random);
                        }
                    } catch (KafkaException | IllegalStateException stopped) {
                        // the kill: the member is gone with the broker
                    } finally {
                        // Short: after a kill there is no broker to leave the group with.
                        consumer.close(Duration.ofSeconds(2));
                    }
                },
                "share-crash-consumer-" + n);
    }

    private void consumeOnce(KafkaShareConsumer<String, String> consumer, Random random) {
        Map<String, List<String>> acceptedBy = new HashMap<>();
        try {
            var records = consumer.poll(Duration.ofMillis(200));
            records.forEach(this::check);
            CountDownLatch hold = records.isEmpty() ? null : holdForKill.getAndSet(null);
            if (hold != null) {
                records.forEach(r -> heldAtKill.put(
                        r.value(), r.deliveryCount().map(Short::intValue).orElse(-1)));
                hold.countDown();
                killed.get().await(60, TimeUnit.SECONDS);
                return; // never acknowledged: the broker is gone, and with it this member
            }
            for (ConsumerRecord<String, String> r : records) {
                // Now and then a release: it must come back, counted once more.
                boolean release = random.nextInt(20) == 0 && r.deliveryCount().orElse((short) 0) < 3;
                consumer.acknowledge(r, release ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
                if (release) {
                    released.add(r.value());
                }
                if (!release) {
                    acceptedBy
                            .computeIfAbsent(r.topic() + "-" + r.partition(), k -> new ArrayList<>())
                            .add(r.value());
                }
            }
            acceptedBy.values().forEach(uncertain::addAll); // until the answer says otherwise
            Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync(Duration.ofSeconds(5));
            result.forEach((tp, error) -> {
                if (error.isEmpty()) {
                    List<String> values = acceptedBy.getOrDefault(tp.topic() + "-" + tp.partition(), List.of());
                    accepted.addAll(values);
                    values.forEach(uncertain::remove);
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (WakeupException | org.apache.kafka.common.errors.TimeoutException e) {
            // a commit the kill left unanswered: those acceptances may or may not have been made durable
        }
    }

    private void check(ConsumerRecord<String, String> r) {
        String v = r.value();
        int count = r.deliveryCount().map(Short::intValue).orElse(-1);
        if (accepted.contains(v)) {
            violation.compareAndSet(
                    null, v + " delivered again (count " + count + ") after its acceptance was answered");
        }
        uncertain.remove(v); // delivered again: that acceptance was not durable
        Integer before = lastDeliveryCount.put(v, count);
        if (before != null) {
            (released.remove(v) ? redeliveredAfterRelease : redeliveredAfterKill).incrementAndGet();
            if (count <= before) {
                violation.compareAndSet(
                        null, v + " delivered again with delivery count " + count + ", last time " + before);
            }
        }
    }

    private static Properties props(BrokerProcess broker) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put("share.acknowledgement.mode", "explicit");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 500);
        return p;
    }

    private static void assertVerifyClean(Path data, String context) {
        KaasRun verify = KaasRun.of("verify", data.toString());
        assertThat(verify.exitCode())
                .as("kaas verify %s, %s:%n%s%s", data, context, verify.out(), verify.err())
                .isZero();
    }
}
