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
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
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
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The crash harness with a transactional producer: {@code kaas serve} as a real process, transactions of
 * six records over three partitions committed or aborted at random, and {@code kill -9} mid-transaction,
 * mid-commit or during a clean shutdown. After each restart, once the timeout sweep has aborted what the
 * kill left open (the last stable offset reaches the high watermark on every partition), a read_committed
 * consumer sees every committed transaction whole and exactly once, nothing of a transaction that was
 * never committed, and each transaction whose commit the kill interrupted either whole or not at all; the offset
 * each transaction commits for a group (TxnOffsetCommit, pending in the group's file until the marker) is the last
 * committed transaction's;
 * {@code kaas verify} finds the data dir clean. Once per {@code transaction.version} (the 4.4 producer follows
 * it: 2 bumps the epoch at every commit or abort). {@code -Dkaas.crash.txn.cycles=N} (per version),
 * {@code -Dkaas.crash.seed=S}.
 */
@ParameterizedClass(name = "transaction.version={0}")
@ValueSource(shorts = {1, 2})
class TransactionalCrashHarnessIT {
    private static final String TOPIC = "crash-txn";
    private static final int PARTITIONS = 3;
    private static final int RECORDS_PER_TXN = 6;
    /** Every transaction also commits an offset of this group (TxnOffsetCommit), its metadata the transaction's key. */
    private static final String GROUP = "crash-txn-group";

    enum Outcome {
        NEVER_COMMITTED,
        IN_DOUBT,
        COMMITTED
    }

    /** Wherever the producer is; once a record of the open transaction is acknowledged (the sweep must abort it); during a clean shutdown. */
    enum KillMoment {
        ANYWHERE,
        WITH_OPEN_TRANSACTION,
        DURING_SHUTDOWN
    }

    @Parameter
    short transactionVersion;

    /** Every transaction so far, by its key (the prefix of its records' values). */
    private final Map<String, Outcome> txns = new ConcurrentHashMap<>();
    /** Every transaction's key, in the order they began. */
    private final List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Restarts that found a transaction open (last stable offset below the high watermark) until the sweep aborted it. */
    private int openAtRestart;

    @Test
    void committedTransactionsAreWholeAndOthersInvisibleAfterKillNine(@TempDir Path dir) throws Exception {
        int cycles = Integer.getInteger("kaas.crash.txn.cycles", 3);
        long seed = Long.getLong("kaas.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path data = dir.resolve("data");
        for (int cycle = 0; cycle < cycles; cycle++) {
            String context = "cycle " + cycle + " (seed " + seed + ")";
            try (BrokerProcess broker = start(data, dir.resolve("serve-" + cycle + ".log"))) {
                if (cycle == 0) {
                    try (Admin admin = Admin.create(CrashClients.admin(broker))) {
                        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                                .all()
                                .get(30, TimeUnit.SECONDS);
                    }
                }
                verifyTransactions(broker, context);
                assertVerifyClean(data, context);
                driveAndKill(broker, cycle, random, context);
            }
        }
        try (BrokerProcess broker = start(data, dir.resolve("serve-final.log"))) {
            verifyTransactions(broker, "after the last kill (seed " + seed + ")");
            broker.stop();
        }
        assertVerifyClean(data, "after the final clean shutdown (seed " + seed + ")");
        long committed =
                txns.values().stream().filter(o -> o == Outcome.COMMITTED).count();
        System.out.printf(
                "crash-txn: transaction.version %d, %d cycles, %d transactions (%d committed), %d restarts found one open, seed %d%n",
                transactionVersion, cycles, txns.size(), committed, openAtRestart, seed);
    }

    private BrokerProcess start(Path data, Path log) throws Exception {
        return BrokerProcess.start(data, log, 16 * 1024, "--transaction-version", Short.toString(transactionVersion));
    }

    private static void assertVerifyClean(Path data, String context) {
        KaasRun verify = KaasRun.of("verify", data.toString());
        assertThat(verify.exitCode())
                .as("kaas verify %s, %s:%n%s%s", data, context, verify.out(), verify.err())
                .isZero();
    }

    /** Runs transactions until a random count has ended, then kills the broker wherever the producer is. */
    private void driveAndKill(BrokerProcess broker, int cycle, Random random, String context) throws Exception {
        KillMoment moment = KillMoment.values()[random.nextInt(KillMoment.values().length)];
        long target = 3 + random.nextInt(12);
        long seedForProducer = random.nextLong();
        AtomicLong ended = new AtomicLong();
        // WITH_OPEN_TRANSACTION: the producer stops before ending transaction number `target`, its records
        // acknowledged.
        java.util.concurrent.CountDownLatch openWithData = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<RuntimeException> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(broker));
        Thread driver = new Thread(
                () -> {
                    Random r = new Random(seedForProducer);
                    try {
                        producer.initTransactions();
                        for (int n = 0; !Thread.currentThread().isInterrupted(); n++) {
                            String key = "c" + cycle + "-t" + n;
                            txns.put(key, Outcome.NEVER_COMMITTED);
                            order.add(key);
                            producer.beginTransaction();
                            for (int i = 0; i < RECORDS_PER_TXN; i++) {
                                producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, key + "-" + i));
                            }
                            // Staged as pending offsets by the group coordinator (durably, before the answer).
                            producer.sendOffsetsToTransaction(
                                    Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(order.size(), key)),
                                    new ConsumerGroupMetadata(GROUP));
                            if (moment == KillMoment.WITH_OPEN_TRANSACTION && n == target) {
                                producer.flush();
                                openWithData.countDown();
                                new java.util.concurrent.CountDownLatch(1).await(); // until the kill interrupts us
                            }
                            if (r.nextInt(3) == 0) {
                                producer.abortTransaction();
                            } else {
                                txns.put(key, Outcome.IN_DOUBT);
                                producer.commitTransaction();
                                txns.put(key, Outcome.COMMITTED);
                            }
                            ended.incrementAndGet();
                        }
                    } catch (RuntimeException stopped) {
                        failure.set(
                                stopped); // the kill, the producer closing under us, or a real failure before the kill
                    } catch (InterruptedException held) {
                        Thread.currentThread().interrupt();
                    }
                },
                "crash-txn-producer-" + cycle);
        System.out.printf("crash-txn: %s: kill %s after %d transactions%n", context, moment, target);
        try {
            driver.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                if (failure.get() != null) {
                    throw new AssertionError(
                            "the transactional producer failed before the kill after " + ended.get() + " transactions",
                            failure.get());
                }
                return ended.get() >= target;
            });
            switch (moment) {
                case ANYWHERE -> broker.kill();
                case WITH_OPEN_TRANSACTION -> {
                    assertThat(openWithData.await(60, TimeUnit.SECONDS))
                            .as("a transaction open with acknowledged records")
                            .isTrue();
                    broker.kill();
                }
                case DURING_SHUTDOWN -> broker.stopThenKillAfter(random.nextInt(300));
            }
        } catch (Throwable t) {
            throw new AssertionError(context + ": " + moment + " failed", t);
        } finally {
            broker.kill();
            driver.interrupt();
            producer.close(Duration.ZERO);
            driver.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** Waits until no transaction is open, then holds read_committed data to every outcome known so far. */
    private void verifyTransactions(BrokerProcess broker, String context) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            tps.add(new TopicPartition(TOPIC, p));
        }
        try (KafkaConsumer<String, String> uncommitted =
                        new KafkaConsumer<>(CrashClients.consumer(broker, null, "read_uncommitted"));
                KafkaConsumer<String, String> consumer =
                        new KafkaConsumer<>(CrashClients.consumer(broker, null, "read_committed"))) {
            // The sweep aborts what the kill left open (transaction.timeout.ms 2 s, a sweep every 10 s).
            Map<TopicPartition, Long> ends = new HashMap<>();
            Map<TopicPartition, Long> hw0 = uncommitted.endOffsets(tps, Duration.ofSeconds(30));
            Map<TopicPartition, Long> lso0 = consumer.endOffsets(tps, Duration.ofSeconds(30));
            if (!hw0.equals(lso0)) {
                openAtRestart++;
                System.out.printf("crash-txn: %s: a transaction is open at restart%n", context);
            }
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        Map<TopicPartition, Long> hw = uncommitted.endOffsets(tps, Duration.ofSeconds(30));
                        Map<TopicPartition, Long> lso = consumer.endOffsets(tps, Duration.ofSeconds(30));
                        ends.putAll(lso);
                        return hw.equals(lso);
                    });
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<String, Integer> seen = new HashMap<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    String key = r.value().substring(0, r.value().lastIndexOf('-'));
                    seen.merge(key, 1, Integer::sum);
                }
                return tps.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
            });
            for (Map.Entry<String, Integer> s : seen.entrySet()) {
                assertThat(txns)
                        .as("%s: records of an unknown transaction %s", context, s.getKey())
                        .containsKey(s.getKey());
            }
            for (Map.Entry<String, Outcome> t : txns.entrySet()) {
                int visible = seen.getOrDefault(t.getKey(), 0);
                switch (t.getValue()) {
                    case COMMITTED ->
                        assertThat(visible)
                                .as("%s: committed transaction %s", context, t.getKey())
                                .isEqualTo(RECORDS_PER_TXN);
                    case NEVER_COMMITTED ->
                        assertThat(visible)
                                .as("%s: never committed transaction %s", context, t.getKey())
                                .isZero();
                    case IN_DOUBT -> {
                        assertThat(visible)
                                .as(
                                        "%s: transaction %s whose commit the kill interrupted is all or nothing",
                                        context, t.getKey())
                                .isIn(0, RECORDS_PER_TXN);
                        t.setValue(visible == 0 ? Outcome.NEVER_COMMITTED : Outcome.COMMITTED);
                    }
                }
            }
        }
        // The group's offset is the last committed transaction's, exactly: the offsets a transaction staged (pending
        // in the group's file across the kill) were committed with it, and nothing of a transaction that was not.
        String lastCommitted = null;
        synchronized (order) {
            for (String key : order) {
                if (txns.get(key) == Outcome.COMMITTED) {
                    lastCommitted = key;
                }
            }
        }
        try (Admin admin = Admin.create(CrashClients.admin(broker))) {
            OffsetAndMetadata committed = admin.listConsumerGroupOffsets(GROUP)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .get(new TopicPartition(TOPIC, 0));
            assertThat(committed == null ? null : committed.metadata())
                    .as("%s: group %s's offset names the last committed transaction", context, GROUP)
                    .isEqualTo(lastCommitted);
            if (lastCommitted != null) {
                assertThat(committed.offset())
                        .as("%s: the offset of transaction %s", context, lastCommitted)
                        .isEqualTo(order.indexOf(lastCommitted) + 1);
            }
        } catch (Exception e) {
            throw new AssertionError(context + ": reading group " + GROUP + "'s offsets", e);
        }
    }

    private static Properties producerProps(BrokerProcess broker) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "crash-txn");
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 2_000);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return p;
    }
}
