package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kaas ls} and {@code kaas cat} on an Apache Kafka log dir, on paths without data, and on bad arguments. */
class LsCatCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** An Apache log dir as a stopped Apache broker leaves it: {@code orders-0/} with two segments, checkpoints. */
    private Path apacheLogDir(Uuid topicId) throws Exception {
        Path logDir = dir.resolve("apache");
        Path p = logDir.resolve("orders-0");
        List<ByteBuffer> first = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            first.add(LogFixture.batch(i * 10L, LogFixture.CODECS.get(i % LogFixture.CODECS.size()), 10));
        }
        LogFixture.writeSegment(p, new SegmentName(-1, 0, true), first, 256);
        List<ByteBuffer> second = new ArrayList<>();
        for (int i = 5; i < 8; i++) {
            second.add(LogFixture.batch(i * 10L, Compression.NONE, 10));
        }
        LogFixture.writeSegment(p, new SegmentName(-1, 50, true), second, 256);
        Files.writeString(p.resolve("partition.metadata"), "version: 0\ntopic_id: " + topicId + "\n");
        Files.writeString(logDir.resolve("replication-offset-checkpoint"), "0\n1\norders 0 80\n");
        Files.writeString(logDir.resolve("log-start-offset-checkpoint"), "0\n1\norders 0 5\n");
        Files.writeString(logDir.resolve("meta.properties"), "version=1\nnode.id=1\n");
        return logDir;
    }

    @Test
    void lsReadsAnApacheLogDir() throws Exception {
        Uuid id = Uuid.randomUuid();
        Path logDir = apacheLogDir(id);
        KaasRun json = KaasRun.of("ls", "--json", logDir.toString());
        assertThat(json.exitCode()).as(json.toString()).isZero();
        List<String> lines = json.out().lines().toList();
        assertThat(lines).hasSize(2);
        JsonNode row = JSON.readTree(lines.get(0));
        assertThat(row.get("topic").asText()).isEqualTo("orders");
        assertThat(row.get("format").asText()).isEqualTo("apache");
        assertThat(row.get("topicId").asText()).isEqualTo(id.toString());
        assertThat(row.get("segments").asInt()).isEqualTo(2);
        assertThat(row.get("logStartOffset").asLong()).isEqualTo(5);
        assertThat(row.get("logEndOffset").asLong()).isEqualTo(80);
        assertThat(row.get("highWatermark").asLong()).isEqualTo(80);
        assertThat(row.get("oldestTimestamp").asLong()).isEqualTo(LogFixture.TIMESTAMP);
        assertThat(row.get("newestTimestamp").asLong()).isEqualTo(LogFixture.TIMESTAMP + 9);
        assertThat(row.get("ownedByBroker").asBoolean()).isFalse();
        assertThat(row.get("bytes").asLong())
                .isEqualTo(Files.size(logDir.resolve("orders-0/00000000000000000000.log"))
                        + Files.size(logDir.resolve("orders-0/00000000000000000050.log")));
        JsonNode summary = JSON.readTree(lines.get(1));
        assertThat(summary.get("type").asText()).isEqualTo("summary");
        assertThat(summary.get("partitions").asInt()).isEqualTo(1);

        KaasRun text = KaasRun.of("ls", logDir.toString());
        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.out().lines().toList().get(0).split("\\s+")).startsWith("TOPIC", "PARTITION", "TOPIC-ID");
        assertThat(text.out().lines().toList().get(1).split("\\s+"))
                .startsWith("orders", "0", id.toString(), "2", "5", "80", "80");
    }

    @Test
    void catReadsAnApacheLogDirFromItsLogStartAcrossSegmentsAndCodecs() throws Exception {
        Path logDir = apacheLogDir(Uuid.randomUuid());
        KaasRun all = KaasRun.of("cat", "--data-dir", logDir.toString(), "orders-0", "-f", "%o:%k=%s %h\\n");
        assertThat(all.exitCode()).as(all.toString()).isZero();
        List<String> lines = all.out().lines().toList();
        assertThat(lines).hasSize(75); // log start 5 of 80
        assertThat(lines.get(0)).isEqualTo("5:k5=v5 h=x");
        assertThat(lines.get(74)).isEqualTo("79:k79=v79 h=x");
        KaasRun range = KaasRun.of(
                "cat",
                "--data-dir",
                logDir.toString(),
                "orders-0",
                "-f",
                "%o\\n",
                "--from-offset",
                "47",
                "--to-offset",
                "52");
        assertThat(range.out().lines().toList()).containsExactly("47", "48", "49", "50", "51", "52");
        KaasRun byTime = KaasRun.of(
                "cat",
                "--data-dir",
                logDir.toString(),
                "orders-0",
                "-f",
                "%o %T\\n",
                "--from-time",
                Long.toString(LogFixture.TIMESTAMP + 8),
                "--to-offset",
                "30");
        assertThat(byTime.out().lines().toList())
                .as("each batch's records are TIMESTAMP+0..9: the first at or after +8 is offset 8")
                .startsWith(
                        "8 " + (LogFixture.TIMESTAMP + 8),
                        "9 " + (LogFixture.TIMESTAMP + 9),
                        "10 " + LogFixture.TIMESTAMP)
                .hasSize(23);
    }

    @Test
    void aPathWithoutDataIsExit3() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        KaasRun ls = KaasRun.of("ls", empty.toString());
        assertThat(ls.exitCode()).as(ls.toString()).isEqualTo(3);
        assertThat(ls.out()).isEmpty();
        assertThat(ls.err()).contains(empty.toString());
        Files.createDirectories(dir.resolve("kaas/__cluster"));
        assertThat(KaasRun.of("ls", dir.resolve("kaas").toString()).exitCode())
                .as("a data dir with no partition: nothing to list")
                .isEqualTo(3);
        assertThat(KaasRun.of("ls", dir.resolve("missing").toString()).exitCode())
                .isEqualTo(3);
        KaasRun cat = KaasRun.of("cat", "--data-dir", empty.toString(), "orders-0");
        assertThat(cat.exitCode()).as(cat.toString()).isEqualTo(3);
        assertThat(cat.err()).contains("no partition orders-0");
    }

    @Test
    void badArgumentsAreUsageErrors() throws Exception {
        Path logDir = apacheLogDir(Uuid.randomUuid());
        String d = logDir.toString();
        for (List<String> args : List.of(
                List.of("cat", "--data-dir", d, "orders"),
                List.of("cat", "--data-dir", d, "orders-0", "-f", "%x"),
                List.of("cat", "--data-dir", d, "orders-0", "-f", "50%"),
                List.of("cat", "--data-dir", d, "orders-0", "--from-offset", "1", "--from-time", "2"),
                List.of("cat", "--data-dir", d, "orders-0", "--from-time", "yesterday"),
                List.of("cat", "--data-dir", d, "orders-0", "--isolation", "serializable"),
                List.of("cat", "--data-dir", d))) {
            KaasRun r = KaasRun.of(args.toArray(String[]::new));
            assertThat(r.exitCode()).as(args + ": " + r).isEqualTo(2);
            assertThat(r.out()).isEmpty();
        }
    }
}
