package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.cluster.Endpoint;
import io.kaas.storage.ExitCodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ServeCommandTest {

    private static BrokerConfig parse(String... args) {
        CommandLine kaas = Kaas.newCommandLine(Terminal.PLAIN);
        CommandLine.ParseResult parsed = kaas.parseArgs(prepend(args));
        return new BrokerLaunch((ServeCommand) parsed.subcommand().commandSpec().userObject()).toConfig();
    }

    private static String[] prepend(String[] args) {
        String[] all = new String[args.length + 1];
        all[0] = "serve";
        System.arraycopy(args, 0, all, 1, args.length);
        return all;
    }

    @Test
    void noArgumentsMeansLocalhost9092AndKaasData() {
        BrokerConfig c = parse();
        assertThat(c.listeners()).containsExactly(new Endpoint("PLAINTEXT", "localhost", 9092));
        assertThat(c.dataDir()).isEqualTo(Path.of("./kaas-data"));
        assertThat(c.flushIntervalMessages()).isEqualTo(1);
        assertThat(c.retentionCheckInterval()).isEqualTo(Duration.ofSeconds(300));
        assertThat(c.autoCreateTopics()).isTrue();
        assertThat(c.inMemory()).isFalse();
    }

    @Test
    void flagsAreParsedLikeKafkas() {
        BrokerConfig c = parse(
                "--listeners",
                "PLAINTEXT://127.0.0.1:19092,PLAINTEXT://[::1]:19093",
                "--advertised-listeners",
                "PLAINTEXT://kafka.example:9092",
                "--broker-id",
                "7",
                "--cluster-id",
                "c1",
                "--flush-interval-messages",
                "100",
                "--retention-check-interval",
                "0",
                "--no-auto-create-topics",
                "--segment-bytes",
                "1048576",
                "--in-memory");
        assertThat(c.listeners())
                .containsExactly(
                        new Endpoint("PLAINTEXT", "127.0.0.1", 19092), new Endpoint("PLAINTEXT", "::1", 19093));
        assertThat(c.advertisedListeners()).containsExactly(new Endpoint("PLAINTEXT", "kafka.example", 9092));
        assertThat(c.brokerId()).isEqualTo(7);
        assertThat(c.clusterId()).isEqualTo("c1");
        assertThat(c.flushIntervalMessages()).isEqualTo(100);
        assertThat(c.retentionCheckInterval()).isZero();
        assertThat(c.autoCreateTopics()).isFalse();
        assertThat(c.segmentBytes()).isEqualTo(1048576);
        assertThat(c.inMemory()).isTrue();
        assertThat(parse("--retention-check-interval", "5m").retentionCheckInterval())
                .isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void listenersAcceptTheOriginalsJsonForm() {
        assertThat(Endpoint.parseListOrJson("[{\"name\":\"PLAINTEXT\",\"host\":\"0.0.0.0\",\"port\":9092}]"))
                .containsExactly(new Endpoint("PLAINTEXT", "0.0.0.0", 9092));
        assertThat(Endpoint.parseListOrJson("{\"PLAINTEXT\":\"127.0.0.1:9093\"}"))
                .containsExactly(new Endpoint("PLAINTEXT", "127.0.0.1", 9093));
    }

    @Test
    void adminListenerDefaultsToLoopback9644AndNoneTurnsItOff() {
        if (System.getenv("KAAS_ADMIN_LISTENER") == null) {
            assertThat(parse().adminListener()).isEqualTo(BrokerConfig.DEFAULT_ADMIN_LISTENER);
        }
        assertThat(parse("--admin-listener", "none").adminListener()).isNull();
        assertThat(parse("--admin-listener", "0.0.0.0:9100").adminListener())
                .isEqualTo(java.net.InetSocketAddress.createUnresolved("0.0.0.0", 9100));
        assertThat(parse("--admin-listener", "[::1]:9100").adminListener().getHostString())
                .isEqualTo("::1");
        assertThat(parse().metricsPerPartition()).isTrue();
        assertThat(parse("--no-metrics-per-partition").metricsPerPartition()).isFalse();
        KaasRun bad = KaasRun.of("serve", "--admin-listener", "9644");
        assertThat(bad.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(bad.err()).contains("HOST:PORT or 'none'");
    }

    @Test
    void aTakenAdminPortIsOneLineAndExit3(@TempDir Path dir) throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            KaasRun run = KaasRun.of(
                    "serve",
                    "--listeners",
                    "PLAINTEXT://127.0.0.1:0",
                    "--data-dir",
                    dir.toString(),
                    "--admin-listener",
                    "127.0.0.1:" + taken.getLocalPort());
            assertThat(run.exitCode()).isEqualTo(ExitCodes.UNREADABLE);
            assertThat(run.err().strip())
                    .doesNotContain("\n")
                    .startsWith("kaas serve: admin listener 127.0.0.1:" + taken.getLocalPort() + ": cannot bind");
            assertThat(run.out()).isEmpty();
        }
    }

    @Test
    void badListenerIsAUsageError() {
        KaasRun run = KaasRun.of("serve", "--listeners", "localhost:9092");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("NAME://host:port");
    }

    private static Process serve(Path dir, Path log) throws Exception {
        return new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        ChildJvm.classpath(),
                        "io.kaas.cli.Kaas",
                        "serve",
                        "--listeners",
                        "PLAINTEXT://127.0.0.1:0",
                        "--data-dir",
                        dir.resolve("data").toString(),
                        "--admin-listener",
                        "127.0.0.1:0")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private static int awaitPort(Path log) {
        Pattern listening = Pattern.compile("listening on .*advertised PLAINTEXT://127\\.0\\.0\\.1:(\\d+)");
        Matcher m = await().atMost(Duration.ofSeconds(30))
                .until(() -> listening.matcher(Files.readString(log)), Matcher::find);
        return Integer.parseInt(m.group(1));
    }

    private static Properties clientProps(int port) {
        Properties props = new Properties();
        props.put("bootstrap.servers", "127.0.0.1:" + port);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class);
        props.put("value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class);
        return props;
    }

    /**
     * SIGKILL mid-stream: every record the broker acknowledged (acks=all) before the kill is there
     * after a restart, as is the committed offset.
     */
    @Test
    void killedBrokerKeepsEveryAcknowledgedRecordAndCommit(@TempDir Path dir) throws Exception {
        Process p = serve(dir, dir.resolve("first.log"));
        try {
            killMidStreamThenRestart(p, dir);
        } finally {
            killAndWait(p); // a no-op after the kill; on a failure before it, no child outlives the test
        }
    }

    private static void killMidStreamThenRestart(Process p, Path dir) throws Exception {
        int port = awaitPort(dir.resolve("first.log"));
        java.util.Set<String> acked = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Properties props = clientProps(port);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < 2000; i++) {
                String v = "r" + i;
                producer.send(new ProducerRecord<>("durable", v), (md, e) -> {
                    if (e == null) {
                        acked.add(v);
                    }
                });
                if (i == 1000) {
                    producer.flush();
                    Properties c = clientProps(port);
                    c.put("group.id", "durable-group");
                    try (org.apache.kafka.clients.consumer.KafkaConsumer<String, String> consumer =
                            new org.apache.kafka.clients.consumer.KafkaConsumer<>(c)) {
                        consumer.commitSync(java.util.Map.of(
                                new org.apache.kafka.common.TopicPartition("durable", 0),
                                new org.apache.kafka.clients.consumer.OffsetAndMetadata(500)));
                    }
                    p.destroyForcibly(); // SIGKILL: no shutdown hook, no clean close
                    p.waitFor();
                    break;
                }
            }
        } catch (org.apache.kafka.common.KafkaException closing) {
            // the producer may complain while the broker is gone; only what was acknowledged counts
        }
        assertThat(acked).hasSizeGreaterThanOrEqualTo(1001);

        Process again = serve(dir, dir.resolve("second.log"));
        try {
            int port2 = awaitPort(dir.resolve("second.log"));
            Properties c = clientProps(port2);
            c.put("group.id", "durable-group");
            c.put("auto.offset.reset", "earliest");
            java.util.Set<String> seen = new java.util.HashSet<>();
            try (org.apache.kafka.clients.consumer.KafkaConsumer<String, String> consumer =
                    new org.apache.kafka.clients.consumer.KafkaConsumer<>(c)) {
                org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition("durable", 0);
                assertThat(consumer.committed(java.util.Set.of(tp)).get(tp).offset())
                        .isEqualTo(500);
                consumer.assign(java.util.List.of(tp));
                consumer.seekToBeginning(java.util.List.of(tp));
                long deadline = System.currentTimeMillis() + 30_000;
                while (!seen.containsAll(acked) && System.currentTimeMillis() < deadline) {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> seen.add(r.value()));
                }
            }
            assertThat(seen).containsAll(acked);
        } finally {
            again.destroy();
            if (!again.waitFor(30, TimeUnit.SECONDS)) {
                killAndWait(again);
            }
        }
    }

    private static void killAndWait(Process p) throws InterruptedException {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    /** The real command in a child JVM: serves a producer, then SIGTERM shuts it down cleanly, releasing the data dir. */
    @Test
    void sigtermShutsDownCleanly(@TempDir Path dir) throws Exception {
        for (int round = 0; round < 2; round++) {
            Path log = dir.resolve("serve-" + round + ".log");
            Process p = serve(dir, log);
            try {
                int port = awaitPort(log);
                Properties props = new Properties();
                props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
                props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
                props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
                    assertThat(producer.send(new ProducerRecord<>("served", "round " + round))
                                    .get()
                                    .offset())
                            .isEqualTo(round);
                }
                p.destroy(); // SIGTERM
                assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(Files.readString(log)).contains("kaas broker 0 stopped");
            } finally {
                killAndWait(p); // a no-op after a clean exit; on a failure, no child outlives the test
            }
        }
    }
}
