package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.format.CodecSite;
import io.kaas.storage.testing.ExternalTool;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The byte-opacity tripwires measured through {@code /metrics}: Produce and Fetch, driven by three
 * independent clients (kafka-clients, librdkafka through kcat, KafkaJS) over every codec each supports,
 * idempotent and transactional, read_uncommitted and read_committed, leave every
 * {@code kaas_codec_*} series at zero; and each intended site does count when it runs (ListOffsets by
 * timestamp, LogAppendTime, and the cleaner's four). A new decode on the hot path fails the first test.
 */
class CodecTripwiresIT {
    private static final InetSocketAddress ANY_LOOPBACK_PORT = InetSocketAddress.createUnresolved("127.0.0.1", 0);
    private static final Pattern SERIES =
            Pattern.compile("^kaas_codec_(?:record_decode|batch_reencode)_total\\{site=\"([a-z_]+)\"} (\\S+)$");
    private static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");

    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void produceAndFetchByEveryClientAndCodecTripNothing() throws Exception {
        ExternalTool.KCAT.assumePresent();
        ExternalTool.KAFKAJS.assumePresent();
        try (TestBroker b =
                new TestBroker(BrokerConfig.forTest(dir.resolve("data")).withAdminListener(ANY_LOOPBACK_PORT))) {
            int expected = 0;
            for (String codec : CODECS) {
                String topic = "java-" + codec;
                try (KafkaProducer<byte[], byte[]> p = b.producer(
                        Map.of("compression.type", codec, "linger.ms", 5, "acks", "all", "enable.idempotence", true))) {
                    List<Future<?>> sent = new ArrayList<>();
                    for (int i = 0; i < 300; i++) {
                        ProducerRecord<byte[], byte[]> r =
                                new ProducerRecord<>(topic, 0, bytes("k" + i), bytes("value-" + i + "-" + codec));
                        r.headers().add("n", bytes(Integer.toString(i)));
                        sent.add(p.send(r));
                    }
                    for (Future<?> f : sent) {
                        f.get();
                    }
                }
                assertThat(consumeAll(b, topic, "read_uncommitted")).isEqualTo(300);
            }
            // Transactions put the coordinator's markers in the log; read_committed Fetch reads around them.
            try (KafkaProducer<byte[], byte[]> p =
                    b.producer(Map.of("transactional.id", "tripwire-txn", "compression.type", "zstd"))) {
                p.initTransactions();
                for (boolean commit : new boolean[] {true, false, true}) {
                    p.beginTransaction();
                    for (int i = 0; i < 50; i++) {
                        p.send(new ProducerRecord<>("java-txn", 0, bytes("k" + i), bytes("v" + i)));
                    }
                    if (commit) {
                        p.commitTransaction();
                    } else {
                        p.flush(); // an abort drops batches not yet sent: these go to the log first
                        p.abortTransaction();
                    }
                }
            }
            assertThat(consumeAll(b, "java-txn", "read_committed")).isEqualTo(100);
            assertThat(consumeAll(b, "java-txn", "read_uncommitted")).isEqualTo(150);

            for (String codec : CODECS) {
                String topic = "kcat-" + codec;
                StringBuilder in = new StringBuilder();
                for (int i = 0; i < 200; i++) {
                    in.append("k")
                            .append(i)
                            .append(':')
                            .append("kcat-")
                            .append(i)
                            .append('\n');
                }
                ExternalProcess produced = ExternalProcess.run(
                        dir,
                        in.toString(),
                        List.of("kcat", "-b", b.bootstrap(), "-P", "-t", topic, "-K:", "-z", codec, "-X", "acks=all"));
                assertThat(produced.exitCode()).as(produced.toString()).isZero();
                ExternalProcess consumed = ExternalProcess.run(
                        dir, null, List.of("kcat", "-b", b.bootstrap(), "-C", "-t", topic, "-o", "beginning", "-e"));
                assertThat(consumed.exitCode()).as(consumed.toString()).isZero();
                assertThat(consumed.out().lines().filter(l -> l.startsWith("kcat-")))
                        .hasSize(200);
            }

            Path script = dir.resolve("roundtrip.js");
            try (var in = getClass().getResourceAsStream("/kafkajs/roundtrip.js")) {
                Files.copy(in, script);
            }
            for (String codec : List.of("none", "gzip")) {
                ExternalProcess js = ExternalProcess.run(
                        dir,
                        null,
                        List.of("node", script.toString(), b.bootstrap(), "kafkajs-" + codec, "200", codec),
                        Map.of("NODE_PATH", ExternalTool.nodeModules().toString()));
                assertThat(js.exitCode()).as(js.toString()).isZero();
                assertThat(js.out()).contains("produced 200 consumed 200");
            }

            Map<CodecSite, Double> counts = scrape(b);
            assertThat(counts.keySet())
                    .as("every site exported from the start")
                    .containsExactlyInAnyOrder(CodecSite.values());
            assertThat(counts)
                    .allSatisfy((site, n) -> assertThat(n)
                            .as("kaas_codec_*{site=\"%s\"} after Produce and Fetch only", site.label())
                            .isZero());
        }
    }

    @Test
    void eachIntendedSiteCountsWhenItRuns() throws Exception {
        BrokerConfig config = BrokerConfig.forTest(dir.resolve("sites"))
                .withAdminListener(ANY_LOOPBACK_PORT)
                .withCleaner(new CleanerSettings(1, 16L << 20, 64 * 1024, Duration.ofMillis(100)));
        try (TestBroker b = new TestBroker(config);
                Admin admin = b.admin()) {
            admin.createTopics(List.of(
                            new NewTopic("appended", 1, (short) 1)
                                    .configs(Map.of("message.timestamp.type", "LogAppendTime")),
                            new NewTopic("table", 1, (short) 1)
                                    .configs(Map.of(
                                            "cleanup.policy", "compact",
                                            "segment.bytes", "1048576",
                                            "min.cleanable.dirty.ratio", "0.01"))))
                    .all()
                    .get();

            // ListOffsets by timestamp reads the records of the one batch spanning the target: ten here.
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of("linger.ms", 1000, "batch.size", 1 << 20))) {
                for (int i = 0; i < 10; i++) {
                    p.send(new ProducerRecord<>("timed", 0, 1_000L + i, bytes("k"), bytes("v" + i)));
                }
                p.flush();
            }
            TopicPartition timed = new TopicPartition("timed", 0);
            assertThat(admin.listOffsets(Map.of(timed, OffsetSpec.forTimestamp(1_005L)))
                            .partitionResult(timed)
                            .get()
                            .offset())
                    .isEqualTo(5);
            assertThat(scrape(b)).containsEntry(CodecSite.LIST_OFFSETS_TIMESTAMP, 10.0);

            // LogAppendTime stamps each batch: one batch per acknowledged send.
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of("acks", "all"))) {
                for (int i = 0; i < 7; i++) {
                    p.send(new ProducerRecord<>("appended", 0, bytes("k"), bytes("v" + i)))
                            .get();
                }
            }
            assertThat(scrape(b)).containsEntry(CodecSite.LOG_APPEND_TIME, 7.0);

            // The cleaner: a batch of ten keys of which five are superseded is rebuilt with the other five;
            // a committed transaction puts a marker in the cleaned range; 40 KB fillers roll the segment.
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of("linger.ms", 1000, "batch.size", 1 << 20))) {
                for (int i = 0; i < 10; i++) {
                    p.send(new ProducerRecord<>("table", 0, bytes("a" + i), bytes("first")));
                }
                p.flush();
                for (int i = 0; i < 5; i++) {
                    p.send(new ProducerRecord<>("table", 0, bytes("a" + i), bytes("second")));
                }
                p.flush();
            }
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of("transactional.id", "table-txn"))) {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>("table", 0, bytes("t"), bytes("committed")));
                p.commitTransaction();
            }
            try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of("acks", "all"))) {
                String filler = "x".repeat(40_000);
                for (int i = 0; i < 60; i++) {
                    p.send(new ProducerRecord<>("table", 0, bytes("f" + (i % 20)), bytes(i + filler)))
                            .get();
                }
            }
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(scrape(b))
                            .hasEntrySatisfying(
                                    CodecSite.CLEANER_KEY_MAP,
                                    n -> assertThat(n).isPositive())
                            .hasEntrySatisfying(
                                    CodecSite.CLEANER_FILTER, n -> assertThat(n).isPositive())
                            .hasEntrySatisfying(
                                    CodecSite.CLEANER_TRANSACTION_MARKER,
                                    n -> assertThat(n).isPositive())
                            .hasEntrySatisfying(
                                    CodecSite.CLEANER_REBUILD,
                                    n -> assertThat(n).isPositive()));
        }
    }

    private static int consumeAll(TestBroker b, String topic, String isolation) {
        TopicPartition tp = new TopicPartition(topic, 0);
        int seen = 0;
        try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of("isolation.level", isolation))) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> ignored : c.poll(Duration.ofMillis(200))) {
                    seen++;
                }
            }
        }
        return seen;
    }

    /** The tripwire series on {@code /metrics}, by site. */
    private Map<CodecSite, Double> scrape(TestBroker b) throws Exception {
        InetSocketAddress admin = b.broker().adminAddress();
        {
            String body = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.getPort() + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            Map<CodecSite, Double> counts = new EnumMap<>(CodecSite.class);
            for (String line : body.split("\n")) {
                Matcher m = SERIES.matcher(line);
                if (m.matches()) {
                    for (CodecSite site : CodecSite.values()) {
                        if (site.label().equals(m.group(1))) {
                            counts.put(site, Double.parseDouble(m.group(2)));
                        }
                    }
                }
            }
            return counts;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
