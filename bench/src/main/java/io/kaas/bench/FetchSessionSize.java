package io.kaas.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One consumer assigned every partition of a topic, with records arriving on a few of them, its
 * Fetch requests sized on the wire by {@link FetchProxy}: the first (full) fetch and the average of
 * the ones after it (incremental, when the broker keeps fetch sessions). Client defaults otherwise.
 *
 * <p>Usage: {@code FetchSessionSize <bootstrap> <topic> <partitions> <activePartitions> <seconds>
 * <proxyLog> <proxyPort>}; bootstrap must be the proxy's address. Prints one line,
 * {@code fetch-session: ...}; exit 1 when the proxy saw no Fetch from this consumer.
 */
public final class FetchSessionSize {

    private FetchSessionSize() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: FetchSessionSize <bootstrap> <topic> <partitions> <activePartitions> <seconds> <proxyLog> <proxyPort>");
            System.exit(2);
        }
        String bootstrap = args[0];
        String topic = args[1];
        int partitions = Integer.parseInt(args[2]);
        int active = Integer.parseInt(args[3]);
        Duration length = Duration.ofSeconds(Long.parseLong(args[4]));
        Path proxyLog = Path.of(args[5]);
        String proxyPort = args[6];
        // A client id of its own picks this consumer's frames out of everything else the proxy logs.
        String clientId = "fetch-session-" + UUID.randomUUID();

        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(topic, p));
        }
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(() -> produce(bootstrap, topic, partitions, active, producing), "producer");
        long consumed = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.CLIENT_ID_CONFIG, clientId,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(all);
            // Resolve every starting offset before the first poll: otherwise partitions whose
            // ListOffsets answer arrives late join the session in later fetches, and the first
            // fetch is not the full one (seen on Apache: 24 KB first, then a 3 KB top-up).
            for (TopicPartition tp : all) {
                consumer.position(tp, Duration.ofSeconds(30));
            }
            producer.start();
            long end = System.nanoTime() + length.toNanos();
            while (System.nanoTime() < end) {
                consumed += consumer.poll(Duration.ofMillis(200)).count();
            }
        } finally {
            producing.set(false);
            producer.join();
        }

        List<Long> sizes = new ArrayList<>();
        String version = "?";
        for (String line : Files.readAllLines(proxyLog, StandardCharsets.UTF_8)) {
            String[] f = line.split(" ");
            if (f.length == 4 && f[0].equals(proxyPort) && f[2].equals(clientId)) {
                version = f[1];
                sizes.add(Long.parseLong(f[3]));
            }
        }
        if (sizes.isEmpty()) {
            System.out.println("fetch-session: no Fetch request from " + clientId + " reached the proxy on " + proxyPort);
            System.exit(1);
        }
        long first = sizes.get(0);
        List<Long> rest = sizes.subList(1, sizes.size());
        double avg = rest.stream().mapToLong(Long::longValue).average().orElse(Double.NaN);
        long max = rest.stream().mapToLong(Long::longValue).max().orElse(0);
        System.out.printf("fetch-session: partitions=%d active=%d fetch_version=%s requests=%d first_bytes=%d after_avg_bytes=%.0f "
                        + "after_max_bytes=%d total_bytes=%d records=%d%n",
                partitions, active, version, sizes.size(), first, avg, max,
                sizes.stream().mapToLong(Long::longValue).sum(), consumed);
    }

    /** A record every 100 ms to each of {@code active} partitions spread over the topic. */
    private static void produce(String bootstrap, String topic, int partitions, int active, AtomicBoolean producing) {
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "1",
                ProducerConfig.LINGER_MS_CONFIG, 0), new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] value = new byte[100];
            while (producing.get()) {
                for (int i = 0; i < active; i++) {
                    p.send(new ProducerRecord<>(topic, i * (partitions / active), null, value));
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
