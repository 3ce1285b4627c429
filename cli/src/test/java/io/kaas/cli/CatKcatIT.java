package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.broker.TestBroker;
import io.kaas.storage.testing.ExternalTool;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kaas cat} and {@code kaas ls} on a data dir a running broker wrote (several segments, every codec, null and
 * empty keys and values, headers, a committed and an aborted transaction, a group's committed offset): cat's bytes
 * are kcat's for the same partition from the broker, read_committed included; ranges are exact; ls's figures match
 * the broker's. Both only read, so they run while the broker owns the partition, and after it stopped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class CatKcatIT {
    private static final String TOPIC = "mix";
    private static final String FORMAT = "%t|%p|%o|%T|%K|%S|%k=%s|%h|%%\\n";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    TestBroker broker;
    Path data;
    long logEnd;
    final long base = System.currentTimeMillis() - 600_000;

    @BeforeAll
    void write() throws Exception {
        ExternalTool.KCAT.assumePresent();
        data = dir.resolve("data");
        broker = new TestBroker(io.kaas.broker.config.BrokerConfig.forTest(data)
                .withRetentionCheckInterval(java.time.Duration.ZERO)
                .withSegmentBytes(16 * 1024));
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            int i = 0;
            for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
                try (KafkaProducer<byte[], byte[]> p =
                        broker.producer(Map.of("compression.type", codec, "linger.ms", 5, "batch.size", 4096))) {
                    for (int n = 0; n < 300; n++, i++) {
                        byte[] key = i % 7 == 0 ? null : i % 13 == 0 ? new byte[0] : bytes("k" + i);
                        byte[] value = i % 11 == 0 ? null : i % 17 == 0 ? new byte[0] : bytes(codec + "-v" + i);
                        RecordHeaders headers = new RecordHeaders();
                        if (i % 3 == 0) {
                            headers.add(new RecordHeader("h1", bytes("x" + i)));
                            headers.add(new RecordHeader("h2", (byte[]) null));
                            headers.add(new RecordHeader("h3", new byte[0]));
                        }
                        p.send(new ProducerRecord<>(TOPIC, 0, base + i * 10L, key, value, headers));
                    }
                    p.flush();
                }
            }
            try (KafkaProducer<byte[], byte[]> t =
                    broker.producer(Map.of("transactional.id", "cat-txn", "compression.type", "lz4"))) {
                t.initTransactions();
                t.beginTransaction();
                for (int n = 0; n < 50; n++) {
                    t.send(new ProducerRecord<>(TOPIC, 0, bytes("c" + n), bytes("committed-" + n)));
                }
                t.commitTransaction();
                t.beginTransaction();
                for (int n = 0; n < 30; n++) {
                    t.send(new ProducerRecord<>(TOPIC, 0, bytes("a" + n), bytes("aborted-" + n)));
                }
                t.flush();
                t.abortTransaction();
            }
            try (KafkaProducer<byte[], byte[]> p = broker.producer(Map.of())) {
                for (int n = 0; n < 20; n++) {
                    p.send(new ProducerRecord<>(TOPIC, 0, bytes("after" + n), bytes("after-" + n)));
                }
                p.flush();
            }
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            admin.alterConsumerGroupOffsets("g1", Map.of(tp, new OffsetAndMetadata(100)))
                    .all()
                    .get();
            logEnd = admin.listOffsets(Map.of(tp, OffsetSpec.latest()))
                    .all()
                    .get()
                    .get(tp)
                    .offset();
        }
    }

    @AfterAll
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code kaas cat ...} in this JVM, stdout as bytes. */
    private byte[] cat(String... args) {
        List<String> all = new ArrayList<>(List.of("cat", "--data-dir", data.toString()));
        all.addAll(List.of(args));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        int exit = Kaas.run(
                Terminal.PLAIN,
                bytes,
                new PrintWriter(new java.io.OutputStreamWriter(bytes, StandardCharsets.UTF_8), true),
                new PrintWriter(err, true),
                all.toArray(String[]::new));
        assertThat(exit).as("kaas %s: %s", all, err).isZero();
        return bytes.toByteArray();
    }

    private byte[] kcat(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(
                List.of("kcat", "-b", broker.bootstrap(), "-C", "-t", TOPIC, "-p", "0", "-o", "beginning", "-e", "-q"));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "kcat", ".out");
        Path err = Files.createTempFile(dir, "kcat", ".err");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("kcat ends").isTrue();
        assertThat(p.exitValue()).as("kcat: " + Files.readString(err)).isZero();
        return Files.readAllBytes(out);
    }

    @Test
    void catPrintsKcatsBytesWhileTheBrokerOwnsThePartition() throws Exception {
        byte[] kcat = kcat("-f", FORMAT, "-X", "isolation.level=read_uncommitted");
        assertThat(new String(kcat, StandardCharsets.UTF_8))
                .contains("=gzip-v", "=zstd-v", "h1=x3,h2=NULL,h3=", "aborted-0", "committed-49");
        assertThat(cat("mix-0", "--format", FORMAT)).isEqualTo(kcat);
        assertThat(cat("mix-0")).as("kcat's default format").isEqualTo(kcat("-X", "isolation.level=read_uncommitted"));
    }

    @Test
    void readCommittedLeavesOutTheAbortedTransactionAsKcatDoes() throws Exception {
        byte[] kcat = kcat("-f", FORMAT, "-X", "isolation.level=read_committed");
        String text = new String(kcat, StandardCharsets.UTF_8);
        assertThat(text).contains("committed-49", "after-19").doesNotContain("aborted-");
        assertThat(cat("mix-0", "--isolation", "read_committed", "--format", FORMAT))
                .isEqualTo(kcat);
    }

    @Test
    void offsetAndTimeRangesAreExactToTheRecord() throws Exception {
        List<String> all = lines(cat("mix-0", "-f", "%o %T\\n"));
        assertThat(all).hasSize((int) (logEnd - 2)); // two markers
        List<String> byOffset = lines(cat("mix-0", "-f", "%o %T\\n", "--from-offset", "333", "--to-offset", "777"));
        assertThat(byOffset).isEqualTo(all.subList(333, 778));
        long from = base + 405 * 10L + 3;
        long to = base + 1203 * 10L;
        List<String> byTime = lines(cat(
                "mix-0",
                "-f",
                "%o %T\\n",
                "--from-time",
                Long.toString(from),
                "--to-time",
                java.time.Instant.ofEpochMilli(to).toString()));
        assertThat(byTime).isEqualTo(all.subList(406, 1204));
    }

    @Test
    void jsonIsOneObjectPerRecordAndASummary() throws Exception {
        List<String> lines = lines(cat("mix-0", "--json", "--to-offset", "21"));
        assertThat(lines).hasSize(23);
        JsonNode first = JSON.readTree(lines.get(0));
        assertThat(first.get("type").asText()).isEqualTo("record");
        assertThat(first.get("key").isNull()).as("key of record 0 is null").isTrue();
        assertThat(first.get("value").isNull()).isTrue();
        assertThat(first.get("headers").get(1).get("value").isNull()).isTrue();
        JsonNode one = JSON.readTree(lines.get(1));
        assertThat(one.get("value").asText()).isEqualTo("none-v1");
        assertThat(one.get("timestamp").asLong()).isEqualTo(base + 10);
        assertThat(JSON.readTree(lines.get(22)).get("records").asLong()).isEqualTo(22);
    }

    @Test
    @org.junit.jupiter.api.Order(Integer.MAX_VALUE)
    void lsShowsOffsetsGroupsAndTheOwnerBeforeAndAfterTheBrokerStops() throws Exception {
        KaasRun text = KaasRun.of("ls", data.toString());
        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.out()).contains("TOPIC", "mix", "owned", "g1");
        JsonNode row = partitionRow(KaasRun.of("ls", "--json", data.toString()));
        assertThat(row.get("logEndOffset").asLong()).isEqualTo(logEnd);
        assertThat(row.get("segments").asInt()).isGreaterThanOrEqualTo(2);
        assertThat(row.get("ownedByBroker").asBoolean()).isTrue();
        assertThat(row.get("oldestTimestamp").asLong()).isEqualTo(base);
        JsonNode g = row.get("groups").get(0);
        assertThat(g.get("group").asText()).isEqualTo("g1");
        assertThat(g.get("committedOffset").asLong()).isEqualTo(100);
        assertThat(g.get("lag").asLong()).isEqualTo(logEnd - 100);

        byte[] before = cat("mix-0", "-f", FORMAT);
        broker.close();
        broker = null;
        JsonNode after = partitionRow(KaasRun.of("ls", "--json", data.toString()));
        assertThat(after.get("ownedByBroker").asBoolean()).isFalse();
        assertThat(after.get("highWatermark").asLong()).as("written at close").isEqualTo(logEnd);
        assertThat(after.get("logEndOffset").asLong()).isEqualTo(logEnd);
        assertThat(cat("mix-0", "-f", FORMAT))
                .as("the same after the broker stopped")
                .isEqualTo(before);
    }

    private static JsonNode partitionRow(KaasRun run) throws Exception {
        assertThat(run.exitCode()).as(run.toString()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(JSON.readTree(lines.get(lines.size() - 1)).get("type").asText())
                .isEqualTo("summary");
        for (String l : lines) {
            JsonNode n = JSON.readTree(l);
            if (n.get("type").asText().equals("partition")
                    && n.get("topic").asText().equals(TOPIC)) {
                return n;
            }
        }
        throw new AssertionError("no row of " + TOPIC + " in " + run);
    }

    private static List<String> lines(byte[] out) {
        return new String(out, StandardCharsets.UTF_8).lines().toList();
    }
}
