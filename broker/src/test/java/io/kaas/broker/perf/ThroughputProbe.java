package io.kaas.broker.perf;

import io.kaas.broker.TestBroker;
import io.kaas.broker.config.BrokerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * An indicative throughput probe, not a test: an in-process broker on a temp dir, one kafka-clients
 * producer (acks=all, 1 KiB records, 8 partitions) for {@code seconds}, then one consumer reading
 * everything back. Prints records/s for both. Run it under JFR to see the broker's allocations:
 * {@code java -XX:StartFlightRecording=filename=probe.jfr -cp <test classpath> io.kaas.broker.perf.ThroughputProbe 20}.
 * Figures from a shared 2-core machine are indicative only.
 */
public final class ThroughputProbe {
    private ThroughputProbe() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        boolean inMemory = args.length > 1 && args[1].equals("memory");
        Path dir = Files.createTempDirectory("kaas-probe");
        BrokerConfig config = BrokerConfig.forTest(dir)
                .withRetentionCheckInterval(Duration.ZERO)
                .withInMemory(inMemory);
        try (TestBroker broker = new TestBroker(config)) {
            try (Admin admin = broker.admin()) {
                admin.createTopics(List.of(new NewTopic("probe", 8, (short) 1)))
                        .all()
                        .get();
            }
            byte[] value = new byte[1024];
            AtomicLong acked = new AtomicLong();
            long produced;
            long start = System.nanoTime();
            try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 5))) {
                long end = start + Duration.ofSeconds(seconds).toNanos();
                while (System.nanoTime() < end) {
                    producer.send(new ProducerRecord<>("probe", value), (m, e) -> {
                        if (e == null) {
                            acked.incrementAndGet();
                        }
                    });
                }
                producer.flush();
                produced = acked.get();
            }
            double produceSecs = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    "produce: %d records in %.1f s = %.0f records/s%n", produced, produceSecs, produced / produceSecs);

            long read = 0;
            long cstart = System.nanoTime();
            try (KafkaConsumer<byte[], byte[]> consumer =
                    broker.consumer(Map.of("group.id", "probe", "max.partition.fetch.bytes", 1 << 20))) {
                consumer.subscribe(List.of("probe"));
                long idleSince = System.nanoTime();
                while (read < produced
                        && System.nanoTime() - idleSince
                                < Duration.ofSeconds(30).toNanos()) {
                    ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(200));
                    if (!recs.isEmpty()) {
                        idleSince = System.nanoTime();
                    }
                    read += recs.count();
                }
            }
            double consumeSecs = (System.nanoTime() - cstart) / 1e9;
            System.out.printf(
                    "consume: %d records in %.1f s = %.0f records/s%n", read, consumeSecs, read / consumeSecs);
        }
    }
}
