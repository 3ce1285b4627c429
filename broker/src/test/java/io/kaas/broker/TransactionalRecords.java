package io.kaas.broker;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What the multi-broker tests (here and in the cli module) do with records over several partitions: one record to each
 * partition in a new transaction, and every record up to each partition's end as a consumer with a given isolation
 * level sees it. One home, so each test says only where it connects.
 */
public final class TransactionalRecords {
    private TransactionalRecords() {}

    /** A new transaction with one acknowledged record to each of {@code topic}'s {@code partitions}, left open. */
    public static List<String> oneToEachPartition(
            KafkaProducer<String, String> producer, String topic, int partitions, String prefix, Duration ackTimeout)
            throws Exception {
        producer.beginTransaction();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            producer.send(new ProducerRecord<>(topic, i, null, prefix + i))
                    .get(ackTimeout.toMillis(), TimeUnit.MILLISECONDS);
            sent.add(prefix + i);
        }
        return sent;
    }

    /**
     * Every record of {@code topic}'s {@code partitions} up to their end offsets, read from the earliest (read_committed:
     * up to the last stable offset, which markers move). {@code client}: bootstrap and security settings.
     */
    public static List<String> readToEnd(Map<String, Object> client, String topic, int partitions, String isolation) {
        Map<String, Object> p = new HashMap<>(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            c.assign(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps, Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
                return tps.stream().allMatch(tp -> c.position(tp) >= ends.get(tp));
            });
        }
        return out;
    }
}
