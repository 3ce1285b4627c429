package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.layout.LogDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeReplicaLogDirsResult.ReplicaLogDirInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.errors.LogDirNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AlterReplicaLogDirs (KIP-113) on a broker over two log dirs: a partition moved while an acks=all producer sends to
 * it and a consumer reads it, every record checked, then moved back; Apache's errors for an unknown dir or partition.
 */
class LogDirMoveIT {
    private static final int BEFORE = 2_000;

    @TempDir
    Path dir;

    @Test
    void aPartitionMovesUnderAnAcksAllProducerAndAConsumerCheckingEveryRecord() throws Exception {
        String d0 = dir.resolve("d0").toAbsolutePath().toString();
        String d1 = dir.resolve("d1").toAbsolutePath().toString();
        BrokerConfig config = BrokerConfig.forTest(dir.resolve("d0")).withLogDirs(LogDirs.parse(d0 + "," + d1));
        TopicPartition tp = new TopicPartition("moving", 0);
        TopicPartitionReplica replica = new TopicPartitionReplica("moving", 0, 0);
        try (TestBroker b = new TestBroker(config);
                Admin admin = b.admin();
                KafkaProducer<byte[], byte[]> producer = b.producer(Map.of("linger.ms", 1));
                KafkaConsumer<byte[], byte[]> consumer = b.consumer(Map.of("max.poll.records", 2000))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("moving", 1, (short) 1)
                            .configs(Map.of("segment.bytes", "1048576"))))
                    .all()
                    .get();
            assertThat(current(admin, replica).getCurrentReplicaLogDir()).isEqualTo(d0);
            byte[] pad = new byte[900];
            AtomicLong sent = new AtomicLong();
            for (; sent.get() < BEFORE; sent.incrementAndGet()) {
                producer.send(record(sent.get(), pad));
            }
            producer.flush();

            // The load: acks=all sends, each acknowledged one remembered, while the partition moves there and back.
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong acked = new AtomicLong(BEFORE);
            CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    Future<RecordMetadata> f = producer.send(record(sent.getAndIncrement(), pad));
                    try {
                        f.get(30, TimeUnit.SECONDS);
                        acked.incrementAndGet();
                    } catch (Exception e) {
                        throw new AssertionError("an acks=all send failed during the move", e);
                    }
                }
            });
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long[] next = {0};

            admin.alterReplicaLogDirs(Map.of(replica, d1)).all().get();
            awaitIn(admin, replica, d1, consumer, next);
            admin.alterReplicaLogDirs(Map.of(replica, d0)).all().get();
            awaitIn(admin, replica, d0, consumer, next);
            stop.set(true);
            load.get(60, TimeUnit.SECONDS);
            producer.flush();
            long total = sent.get();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                check(consumer, next);
                return next[0] >= total;
            });
            assertThat(next[0]).as("every record, once, in order").isEqualTo(total);
            assertThat(acked.get()).isEqualTo(total);
            assertThat(dir.resolve("d1/moving/0")).doesNotExist();
            try (var s = Files.list(dir.resolve("d0/moving"))) {
                assertThat(s.filter(Files::isDirectory).map(p -> p.getFileName().toString()))
                        .containsExactly("0");
            }

            // A move to where it is: nothing to do. Apache's errors otherwise.
            admin.alterReplicaLogDirs(Map.of(replica, d0)).all().get();
            assertThatThrownBy(() -> admin.alterReplicaLogDirs(
                                    Map.of(replica, dir.resolve("d9").toString()))
                            .all()
                            .get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LogDirNotFoundException.class);
            assertThatThrownBy(() -> admin.alterReplicaLogDirs(Map.of(new TopicPartitionReplica("moving", 7, 0), d1))
                            .all()
                            .get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        }
    }

    private static ProducerRecord<byte[], byte[]> record(long i, byte[] pad) {
        byte[] v = pad.clone();
        java.nio.ByteBuffer.wrap(v).putLong(i);
        return new ProducerRecord<>("moving", 0, null, v);
    }

    /** Reads what is there; each record must be the next one sent. */
    private static void check(KafkaConsumer<byte[], byte[]> consumer, long[] next) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
            assertThat(r.offset()).isEqualTo(next[0]);
            assertThat(java.nio.ByteBuffer.wrap(r.value()).getLong()).isEqualTo(next[0]);
            next[0]++;
        }
    }

    /** Consumes meanwhile; the move is over when the partition is in {@code path} and has no future replica. */
    private static void awaitIn(
            Admin admin,
            TopicPartitionReplica replica,
            String path,
            KafkaConsumer<byte[], byte[]> consumer,
            long[] next)
            throws Exception {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            check(consumer, next);
            ReplicaLogDirInfo info = current(admin, replica);
            return path.equals(info.getCurrentReplicaLogDir()) && info.getFutureReplicaLogDir() == null;
        });
    }

    private static ReplicaLogDirInfo current(Admin admin, TopicPartitionReplica replica) throws Exception {
        return admin.describeReplicaLogDirs(List.of(replica)).all().get().get(replica);
    }
}
