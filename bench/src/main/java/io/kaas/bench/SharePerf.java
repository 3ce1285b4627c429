package io.kaas.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Share-group consumption (bench/share.sh): Apache has no perf tool for share groups. Two modes:
 *
 * <ul>
 *   <li>{@code produce <bootstrap> <topic> <partitions> <records> <record-bytes>}: fills the topic (acks=all), not
 *       measured;
 *   <li>{@code consume <bootstrap> <topic> <group> <records> <consumers>}: a new share group (its
 *       {@code share.auto.offset.reset=earliest} set first) of {@code consumers} {@code KafkaShareConsumer}s in
 *       explicit acknowledgement mode, each accepting every record it gets and committing with {@code commitSync}
 *       after each poll, until {@code records} acceptances were answered. Prints one line:
 *       {@code share-perf: <n> records accepted in <s> s: <r> records/s (from the first record: <r2> records/s),
 *       <d> delivered more than once}.
 * </ul>
 *
 * Exit 0 when done; an exception (exit 1) otherwise, or after 600 s.
 */
public final class SharePerf {
    private SharePerf() {}

    public static void main(String[] args) throws Exception {
        if (args[0].equals("produce")) {
            produce(args[1], args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]), Integer.parseInt(args[5]));
        } else {
            consume(args[1], args[2], args[3], Long.parseLong(args[4]), Integer.parseInt(args[5]));
        }
    }

    private static void produce(String bootstrap, String topic, int partitions, long records, int bytes) {
        byte[] value = new byte[bytes];
        Arrays.fill(value, (byte) 'x');
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 65536);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (long i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, (int) (i % partitions), null, value));
            }
            producer.flush();
        }
        System.out.printf("share-perf: produced %d records%n", records);
    }

    private static void consume(String bootstrap, String topic, String group, long records, int consumers)
            throws Exception {
        Properties a = new Properties();
        a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(a)) {
            admin.incrementalAlterConfigs(Map.of(
                            new ConfigResource(ConfigResource.Type.GROUP, group),
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        AtomicLong accepted = new AtomicLong();
        AtomicLong again = new AtomicLong();
        AtomicLong firstRecordNanos = new AtomicLong();
        long started = System.nanoTime();
        long deadline = started + TimeUnit.SECONDS.toNanos(600);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            Thread t = new Thread(
                    () -> {
                        try (KafkaShareConsumer<byte[], byte[]> consumer =
                                new KafkaShareConsumer<>(props(bootstrap, group))) {
                            consumer.subscribe(List.of(topic));
                            while (accepted.get() < records && System.nanoTime() < deadline) {
                                int n = 0;
                                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                                    firstRecordNanos.compareAndSet(0, System.nanoTime());
                                    if (r.deliveryCount().orElse((short) 1) > 1) {
                                        again.incrementAndGet();
                                    }
                                    consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                                    n++;
                                }
                                if (n > 0) {
                                    boolean ok = consumer.commitSync().values().stream()
                                            .allMatch(e -> e.isEmpty());
                                    if (ok) {
                                        accepted.addAndGet(n);
                                    }
                                }
                            }
                        }
                    },
                    "share-perf-consumer-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        long done = System.nanoTime();
        if (accepted.get() < records) {
            throw new IllegalStateException("only " + accepted.get() + " of " + records + " accepted in 600 s");
        }
        double total = (done - started) / 1e9;
        double fromFirst = (done - firstRecordNanos.get()) / 1e9;
        System.out.printf(
                "share-perf: %d records accepted in %.2f s: %.0f records/s (from the first record: %.0f records/s),"
                        + " %d delivered more than once%n",
                accepted.get(), total, accepted.get() / total, accepted.get() / fromFirst, again.get());
    }

    private static Properties props(String bootstrap, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put("share.acknowledgement.mode", "explicit");
        return p;
    }
}
