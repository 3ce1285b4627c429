package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** librdkafka through kcat: metadata, produce, consume and a balanced consumer group. */
class KcatTest {
    @TempDir
    Path dir;
    TestBroker b;

    static boolean kcatInstalled() {
        for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (new File(p, "kcat").canExecute()) {
                return true;
            }
        }
        return false;
    }

    @BeforeEach
    void start() {
        assumeTrue(kcatInstalled(), "kcat is not on PATH (the Debian package is installed by .ci/run); skipping kcat tests");
        b = new TestBroker(dir.resolve("data"));
    }

    @AfterEach
    void stop() {
        if (b != null) {
            b.close();
        }
    }

    private ExternalProcess kcat(String stdin, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("kcat", "-b", b.bootstrap()));
        cmd.addAll(List.of(args));
        return ExternalProcess.run(dir, stdin, cmd);
    }

    @Test
    void produceConsumeAndMetadata() throws Exception {
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            in.append("k").append(i).append(":v").append(i).append('\n');
        }
        ExternalProcess produced = kcat(in.toString(), "-P", "-t", "kc", "-K:", "-X", "enable.idempotence=true", "-X", "acks=all");
        assertThat(produced.exitCode()).as(produced.toString()).isZero();

        ExternalProcess consumed = kcat(null, "-C", "-t", "kc", "-o", "beginning", "-e", "-f", "%k=%s\\n");
        assertThat(consumed.exitCode()).as(consumed.toString()).isZero();
        List<String> lines = consumed.out().lines().toList();
        assertThat(lines).hasSize(100).contains("k0=v0", "k99=v99");

        ExternalProcess meta = kcat(null, "-L");
        assertThat(meta.exitCode()).as(meta.toString()).isZero();
        assertThat(meta.out()).contains("1 brokers:", "broker 0 at 127.0.0.1:" + b.broker().boundPort(), "topic \"kc\" with 1 partitions");

        ExternalProcess json = kcat(null, "-L", "-J");
        assertThat(json.out()).contains("\"topic\":\"kc\"");
    }

    @Test
    void compressedProduceWithEveryCodecConsumesBack() throws Exception {
        for (String codec : List.of("gzip", "snappy", "lz4", "zstd")) {
            ExternalProcess produced = kcat("a\nb\nc\n", "-P", "-t", "z-" + codec, "-z", codec);
            assertThat(produced.exitCode()).as(produced.toString()).isZero();
            ExternalProcess consumed = kcat(null, "-C", "-t", "z-" + codec, "-o", "beginning", "-e");
            assertThat(consumed.out().lines().toList()).as(consumed.toString()).containsExactly("a", "b", "c");
        }
    }

    @Test
    void balancedConsumerGroupConsumesAndCommits() throws Exception {
        kcat("1\n2\n3\n", "-P", "-t", "grp");
        ExternalProcess g = kcat(null, "-G", "kcat-group", "-o", "beginning", "-e", "-X", "auto.commit.interval.ms=100", "grp");
        assertThat(g.exitCode()).as(g.toString()).isZero();
        assertThat(g.out().lines().toList()).containsExactly("1", "2", "3");
    }
}
