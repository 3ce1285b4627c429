package io.kaas.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The client side of {@code bench/scale.sh}: many topics of many partitions, one acks=all
 * record each.
 *
 * <p>Usage: {@code ScaleProbe <bootstrap> create <topics> <partitionsPerTopic>} creates topics
 * {@code scale-0 ...} (500 per request); {@code ScaleProbe <bootstrap> produce <topics>
 * <partitionsPerTopic> <timeoutSeconds> [producers]} sends one acks=all record to every partition and waits
 * for every acknowledgement, the topics dealt round-robin over {@code producers} producers (default 1): one
 * kafka-clients producer's own bookkeeping of 100,000 partitions (its accumulator walks every partition
 * on each send loop) takes a CPU of its own and would hide the broker's part. Each prints {@code <phase> <seconds>} and exits 0, or 1 when anything failed or
 * timed out.
 */
public final class ScaleProbe {
    private static final int TOPICS_PER_REQUEST = 500;

    private ScaleProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 4) {
            System.err.println("usage: ScaleProbe <bootstrap> create|produce <topics> <partitionsPerTopic> [timeoutSeconds]");
            System.exit(2);
        }
        String bootstrap = args[0];
        int topics = Integer.parseInt(args[2]);
        int perTopic = Integer.parseInt(args[3]);
        long start = System.nanoTime();
        try {
            if (args[1].equals("create")) {
                create(bootstrap, topics, perTopic);
            } else {
                produce(
                        bootstrap,
                        topics,
                        perTopic,
                        args.length > 4 ? Integer.parseInt(args[4]) : 90,
                        args.length > 5 ? Integer.parseInt(args[5]) : 1);
            }
        } catch (ExecutionException | TimeoutException e) {
            System.err.println(args[1] + " failed: " + e);
            System.exit(1);
        }
        System.out.printf("%s %.1f%n", args[1], (System.nanoTime() - start) / 1e9);
    }

    private static void create(String bootstrap, int topics, int perTopic)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 600_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 600_000))) {
            for (int from = 0; from < topics; from += TOPICS_PER_REQUEST) {
                List<NewTopic> batch = new ArrayList<>();
                for (int t = from; t < Math.min(topics, from + TOPICS_PER_REQUEST); t++) {
                    batch.add(new NewTopic("scale-" + t, perTopic, (short) 1));
                }
                admin.createTopics(batch).all().get(600, TimeUnit.SECONDS);
            }
        }
    }

    private static void produce(String bootstrap, int topics, int perTopic, int timeoutSeconds, int producers)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 20,
                // One small record per partition: small batches, or 20,000 partitions exhaust buffer.memory.
                ProducerConfig.BATCH_SIZE_CONFIG, 256,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 128L << 20,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutSeconds * 1000L,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutSeconds * 1000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutSeconds * 1000 - 100);
        List<KafkaProducer<byte[], byte[]>> all = new ArrayList<>();
        try {
            for (int i = 0; i < producers; i++) {
                all.add(new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer()));
            }
            List<Future<RecordMetadata>> acks = new ArrayList<>(topics * perTopic);
            byte[] value = "scale".getBytes();
            for (int t = 0; t < topics; t++) {
                KafkaProducer<byte[], byte[]> producer = all.get(t % producers);
                for (int p = 0; p < perTopic; p++) {
                    acks.add(producer.send(new ProducerRecord<>("scale-" + t, p, null, value)));
                }
            }
            for (Future<RecordMetadata> a : acks) {
                a.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } finally {
            all.forEach(KafkaProducer::close);
        }
    }
}
