package io.kaas.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.cli.ChildJvm;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams {@code exactly_once_v2} on kaas, with both sides killed. {@code kaas serve} and the
 * word count ({@link WordCountApp}) run as child JVMs; lines are produced throughout. The broker is killed
 * with {@code kill -9} while the app is processing and restarted on the same data and port; later the app is
 * killed with {@code kill -9} mid-run and started again on its state directory. Every line acknowledged to
 * the producer is counted exactly once: read_committed, each word's counts are 1, 2, 3, … with no repeat and
 * no gap, ending at the number of times the word was sent. Seconds, not minutes: a small vocabulary,
 * transaction.timeout.ms 5 s, static membership so the restarted app rejoins at once.
 */
class StreamsExactlyOnceCrashIT {
    private static final int VOCABULARY = 17, WORDS_PER_LINE = 5;

    /** Words of every acknowledged line, counted. */
    private final Map<String, Long> expected = new ConcurrentHashMap<>();

    @Test
    void wordCountsAreExactAfterKillNineOfTheBrokerAndOfTheApp(@TempDir Path dir) throws Exception {
        int port = freePort();
        Path data = dir.resolve("data");
        Path state = dir.resolve("app-state");
        BrokerProcess broker = BrokerProcess.start(data, dir.resolve("serve-0.log"), 1 << 20, port);
        Process app = null;
        try {
            try (Admin admin = Admin.create(CrashClients.admin(broker))) {
                admin.createTopics(List.of(
                                new NewTopic(WordCountApp.INPUT, 2, (short) 1),
                                new NewTopic(WordCountApp.OUTPUT, 2, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            app = startApp(broker, state, dir.resolve("app-0.log"));
            try (LineProducer lines = new LineProducer(broker, 0);
                    KafkaConsumer<String, Long> output = committedReader(broker)) {
                await().atMost(Duration.ofSeconds(90)).until(() -> outputRecords(output) >= 20);
                broker.kill();
                broker = BrokerProcess.start(data, dir.resolve("serve-1.log"), 1 << 20, port);
                lines.sendMore(100);
            }
            assertExactCounts(broker, "after kill -9 of the broker");

            try (LineProducer lines = new LineProducer(broker, 1_000_000);
                    KafkaConsumer<String, Long> output = committedReader(broker)) {
                long before = outputRecords(output);
                await().atMost(Duration.ofSeconds(60)).until(() -> outputRecords(output) > before + 20);
                kill(app);
                app = startApp(broker, state, dir.resolve("app-1.log"));
                lines.sendMore(100);
            }
            assertExactCounts(broker, "after kill -9 of the app and a restart");
        } finally {
            if (app != null) {
                kill(app);
            }
            broker.close();
        }
    }

    static String line(int n) {
        StringBuilder line = new StringBuilder();
        for (int j = 0; j < WORDS_PER_LINE; j++) {
            line.append(j == 0 ? "" : " ").append('w').append((n * 7 + j * 3) % VOCABULARY);
        }
        return line.toString();
    }

    /**
     * Sends lines from its own thread until closed. Closing waits for every send: each must be acknowledged
     * (the producer retries across the broker's restart), and only then are its words owed to the counts.
     */
    private final class LineProducer implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final Map<Integer, Future<RecordMetadata>> sent = new ConcurrentHashMap<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;

        LineProducer(BrokerProcess broker, int firstLine) {
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
            p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
            producer = new KafkaProducer<>(p);
            thread = new Thread(
                    () -> {
                        for (int n = firstLine; !stop.get(); n++) {
                            sent.put(n, producer.send(new ProducerRecord<>(WordCountApp.INPUT, "line-" + n, line(n))));
                            try {
                                Thread.sleep(10); // a steady trickle: the kills land while lines are being processed
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "eos-line-producer");
            thread.start();
        }

        /** Lets {@code n} more lines go out, then returns. */
        void sendMore(int n) {
            int target = sent.size() + n;
            await().atMost(Duration.ofSeconds(60)).until(() -> sent.size() >= target);
        }

        @Override
        public void close() throws Exception {
            stop.set(true);
            thread.join();
            producer.flush();
            for (Map.Entry<Integer, Future<RecordMetadata>> e : sent.entrySet()) {
                e.getValue().get();
                for (String w : line(e.getKey()).split(" ")) {
                    expected.merge(w, 1L, Long::sum);
                }
            }
            producer.close();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Process startApp(BrokerProcess broker, Path state, Path log) throws Exception {
        return new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m",
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-cp",
                        ChildJvm.classpath(),
                        WordCountApp.class.getName(),
                        broker.bootstrap(),
                        state.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private static void kill(Process p) throws InterruptedException {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    private static KafkaConsumer<String, Long> committedReader(BrokerProcess broker) {
        Properties p = CrashClients.consumer(broker, null, "read_committed");
        p.put(
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class);
        return new KafkaConsumer<>(p);
    }

    private static List<TopicPartition> outputPartitions() {
        return List.of(new TopicPartition(WordCountApp.OUTPUT, 0), new TopicPartition(WordCountApp.OUTPUT, 1));
    }

    /** Committed output records so far (the read_committed end offsets; markers included, which only makes it grow). */
    private static long outputRecords(KafkaConsumer<String, Long> c) {
        return c.endOffsets(outputPartitions(), Duration.ofSeconds(30)).values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    private void assertExactCounts(BrokerProcess broker, String context) {
        Map<String, List<Long>> counts = new TreeMap<>();
        try (KafkaConsumer<String, Long> c = committedReader(broker)) {
            c.assign(outputPartitions());
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        for (ConsumerRecord<String, Long> r : c.poll(Duration.ofMillis(200))) {
                            counts.computeIfAbsent(r.key(), k -> new ArrayList<>())
                                    .add(r.value());
                        }
                        Map<String, Long> latest = new HashMap<>();
                        counts.forEach((w, values) -> latest.put(w, values.get(values.size() - 1)));
                        return latest.equals(expected);
                    });
        }
        counts.forEach((word, values) -> {
            for (int i = 0; i < values.size(); i++) {
                assertThat(values.get(i))
                        .as("%s: committed count #%d of %s (no update twice, none lost)", context, i + 1, word)
                        .isEqualTo(i + 1L);
            }
        });
        System.out.printf(
                "streams-eos: %s: %d words, %d updates, each exactly once%n",
                context,
                counts.size(),
                counts.values().stream().mapToInt(List::size).sum());
    }
}
