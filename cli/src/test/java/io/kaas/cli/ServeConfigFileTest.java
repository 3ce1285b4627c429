package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.cluster.Endpoint;
import io.kaas.storage.ExitCodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kaas serve --config server.properties}: Apache's keys, flags winning, one warning, bad values as usage errors. */
class ServeConfigFileTest {
    @TempDir
    Path dir;

    /** Apache 4.x's config/server.properties (KRaft, combined mode), comments dropped. */
    private static final String APACHE_KRAFT = """
            process.roles=broker,controller
            node.id=1
            controller.quorum.bootstrap.servers=localhost:9093
            listeners=PLAINTEXT://:9092,CONTROLLER://:9093
            inter.broker.listener.name=PLAINTEXT
            advertised.listeners=PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093
            controller.listener.names=CONTROLLER
            listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
            num.network.threads=3
            num.io.threads=8
            socket.send.buffer.bytes=102400
            socket.receive.buffer.bytes=102400
            socket.request.max.bytes=104857600
            log.dirs=%s
            num.partitions=3
            num.recovery.threads.per.data.dir=1
            offsets.topic.replication.factor=1
            transaction.state.log.replication.factor=1
            transaction.state.log.min.isr=1
            log.retention.hours=168
            log.segment.bytes=1073741824
            log.retention.check.interval.ms=300000
            """;

    private Path write(String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    private static BrokerLaunch.Settings parse(String... args) {
        CommandLine kaas = Kaas.newCommandLine(Terminal.PLAIN);
        String[] all = new String[args.length + 1];
        all[0] = "serve";
        System.arraycopy(args, 0, all, 1, args.length);
        return new BrokerLaunch((ServeCommand)
                        kaas.parseArgs(all).subcommand().commandSpec().userObject())
                .toSettings();
    }

    @Test
    void apachesKraftFileAppliesWhatFitsAndNamesTheRestInOneWarning() throws Exception {
        Path data = dir.resolve("logs");
        BrokerLaunch.Settings s = parse(
                "--config",
                write("server.properties", APACHE_KRAFT.formatted(data)).toString());
        assertThat(s.broker().listeners()).containsExactly(new Endpoint("PLAINTEXT", "", 9092));
        assertThat(s.broker().advertisedListeners()).containsExactly(new Endpoint("PLAINTEXT", "localhost", 9092));
        assertThat(s.broker().brokerId()).isEqualTo(1);
        assertThat(s.broker().dataDir()).isEqualTo(data);
        assertThat(s.broker().defaultPartitions()).isEqualTo(3);
        assertThat(s.broker().retentionCheckInterval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.broker().requestHandlerThreads()).isEqualTo(8);
        assertThat(s.broker().networkThreads()).isEqualTo(3);
        assertThat(s.security().protocolOf("PLAINTEXT")).isEqualTo(SecurityProtocol.PLAINTEXT);
        assertThat(s.warning())
                .hasValueSatisfying(w -> assertThat(w)
                        .doesNotContain("\n")
                        .contains(
                                "process.roles",
                                "controller.quorum.bootstrap.servers",
                                "log.retention.hours",
                                "listeners[CONTROLLER]")
                        .doesNotContain(
                                "log.dirs",
                                "node.id",
                                "log.segment.bytes",
                                "listener.security.protocol.map",
                                "num.io.threads",
                                "num.network.threads",
                                "inter.broker.listener.name"));
    }

    @Test
    void authorizerAndQuotaWindowFromTheFileOrFlagsWhichWin() throws Exception {
        Path f = write("server.properties", """
                authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
                super.users=User:admin
                quota.window.num=5
                quota.window.size.seconds=2
                """);
        BrokerLaunch.Settings file = parse("--config", f.toString());
        assertThat(file.security().authorizerEnabled()).isTrue();
        assertThat(file.security().superUsers()).containsExactly("User:admin");
        assertThat(file.security().quotaWindow()).isEqualTo(new io.kaas.broker.quota.ClientQuotas.Window(5, 2));
        assertThat(file.warning()).isEmpty();

        BrokerLaunch.Settings flags = parse(
                "--config",
                f.toString(),
                "--authorizer-class-name",
                "",
                "--super-users",
                "User:root;User:ops",
                "--allow-everyone-if-no-acl-found",
                "--quota-window-num",
                "3",
                "--quota-window-size-seconds",
                "1");
        assertThat(flags.security().authorizerEnabled())
                .as("an empty flag turns the file's authorizer off")
                .isFalse();
        assertThat(flags.security().superUsers()).containsExactly("User:root", "User:ops");
        assertThat(flags.security().allowEveryoneIfNoAcl()).isTrue();
        assertThat(flags.security().quotaWindow()).isEqualTo(new io.kaas.broker.quota.ClientQuotas.Window(3, 1));

        BrokerLaunch.Settings noFile =
                parse("--authorizer-class-name", io.kaas.broker.security.AccessControl.STANDARD_AUTHORIZER);
        assertThat(noFile.security().authorizerEnabled()).isTrue();
        assertThat(noFile.security().allowEveryoneIfNoAcl()).isFalse();
        assertThat(noFile.security().quotaWindow()).isEqualTo(io.kaas.broker.quota.ClientQuotas.Window.DEFAULT);

        KaasRun bad = KaasRun.of(
                "serve",
                "--authorizer-class-name",
                "kafka.security.authorizer.AclAuthorizer",
                "--admin-listener",
                "none");
        assertThat(bad.exitCode()).as(bad.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(bad.err()).contains("authorizer.class.name", "StandardAuthorizer");
        bad = KaasRun.of("serve", "--quota-window-num", "0", "--admin-listener", "none");
        assertThat(bad.exitCode()).as(bad.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(bad.err()).contains("quota.window.num");
    }

    @Test
    void flagsWinOverTheFile() throws Exception {
        Path f = write("server.properties", APACHE_KRAFT.formatted(dir.resolve("logs")));
        BrokerLaunch.Settings s = parse(
                "--config",
                f.toString(),
                "--listeners",
                "PLAINTEXT://127.0.0.1:19092",
                "--broker-id",
                "5",
                "--data-dir",
                dir.resolve("other").toString(),
                "--num-partitions",
                "2");
        assertThat(s.broker().listeners()).containsExactly(new Endpoint("PLAINTEXT", "127.0.0.1", 19092));
        assertThat(s.broker().brokerId()).isEqualTo(5);
        assertThat(s.broker().dataDir()).isEqualTo(dir.resolve("other"));
        assertThat(s.broker().defaultPartitions()).isEqualTo(2);
        assertThat(s.broker().segmentBytes()).isEqualTo(1073741824L);
    }

    @Test
    void threadPoolKeysAndFlags() throws Exception {
        BrokerLaunch.Settings defaults = parse();
        assertThat(defaults.broker().requestHandlerThreads()).isEqualTo(8);
        assertThat(defaults.broker().networkThreads())
                .isEqualTo(io.kaas.broker.config.BrokerConfig.defaultNetworkThreads());
        Path f = write("threads.properties", "num.io.threads=16\nnum.network.threads=2\n");
        BrokerLaunch.Settings file = parse("--config", f.toString());
        assertThat(file.broker().requestHandlerThreads()).isEqualTo(16);
        assertThat(file.broker().networkThreads()).isEqualTo(2);
        assertThat(file.warning()).isEmpty();
        BrokerLaunch.Settings flags =
                parse("--config", f.toString(), "--num-io-threads", "3", "--num-network-threads", "1");
        assertThat(flags.broker().requestHandlerThreads()).isEqualTo(3);
        assertThat(flags.broker().networkThreads()).isEqualTo(1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--num-io-threads", "0"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("num.io.threads");
        Path bad = write("bad-threads.properties", "num.network.threads=0\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--config", bad.toString()))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("num.network.threads");
    }

    /**
     * Apache's socket buffer keys: its config/server.properties sets both to 100 KiB, and kaas then uses them, as Apache
     * would; without them kaas leaves the sizes to the kernel (-1), where Apache's default is 100 KiB.
     */
    @Test
    void socketBufferKeysAndFlags() throws Exception {
        io.kaas.protocol.SocketBuffers os = io.kaas.protocol.SocketBuffers.OS_DEFAULTS;
        assertThat(parse().broker().socketBuffers()).isEqualTo(os);
        BrokerLaunch.Settings apache = parse(
                "--config",
                write("server.properties", APACHE_KRAFT.formatted(dir.resolve("logs")))
                        .toString());
        assertThat(apache.broker().socketBuffers()).isEqualTo(new io.kaas.protocol.SocketBuffers(102400, 102400));
        assertThat(apache.warning())
                .hasValueSatisfying(
                        w -> assertThat(w).doesNotContain("socket.send.buffer.bytes", "socket.receive.buffer.bytes"));
        Path f = write("buffers.properties", "socket.send.buffer.bytes=65536\n");
        assertThat(parse("--config", f.toString()).broker().socketBuffers())
                .isEqualTo(new io.kaas.protocol.SocketBuffers(65536, -1));
        assertThat(parse(
                                "--config",
                                f.toString(),
                                "--socket-send-buffer-bytes",
                                "-1",
                                "--socket-receive-buffer-bytes",
                                "131072")
                        .broker()
                        .socketBuffers())
                .isEqualTo(new io.kaas.protocol.SocketBuffers(-1, 131072));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--socket-send-buffer-bytes", "0"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("socket.send.buffer.bytes");
        Path bad = write("bad-buffers.properties", "socket.receive.buffer.bytes=-2\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--config", bad.toString()))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("socket.receive.buffer.bytes")
                .hasMessageContaining("-1 for the operating system's default");
    }

    @Test
    void transactionKeysAndFlags() throws Exception {
        BrokerLaunch.Settings defaults = parse();
        assertThat(defaults.transactions().maxTimeout()).isEqualTo(Duration.ofMinutes(15));
        assertThat(defaults.transactions().idExpiration()).isEqualTo(Duration.ofDays(7));
        assertThat(defaults.transactions().version()).isEqualTo(io.kaas.broker.txn.TransactionConfig.DEFAULT_VERSION);
        Path f = write("txn.properties", "transaction.max.timeout.ms=60000\ntransactional.id.expiration.ms=3600000\n");
        BrokerLaunch.Settings file = parse("--config", f.toString(), "--transaction-version", "1");
        assertThat(file.transactions().maxTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(file.transactions().idExpiration()).isEqualTo(Duration.ofHours(1));
        assertThat(file.transactions().version()).isEqualTo((short) 1);
        assertThat(file.warning()).isEmpty();
        BrokerLaunch.Settings flags = parse(
                "--config",
                f.toString(),
                "--transaction-max-timeout",
                "2m",
                "--transactional-id-expiration",
                "10s",
                "--transaction-version",
                "2");
        assertThat(flags.transactions().maxTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(flags.transactions().idExpiration()).isEqualTo(Duration.ofSeconds(10));
        assertThat(flags.transactions().version()).isEqualTo((short) 2);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--transaction-version", "3"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("transaction.version");
    }

    @Test
    void logCleanerKeysAndFlags() throws Exception {
        Path f = write("cleaner.properties", """
                log.cleaner.threads=3
                log.cleaner.dedupe.buffer.size=33554432
                log.cleaner.io.buffer.size=65536
                log.cleaner.backoff.ms=2000
                """);
        BrokerLaunch.Settings s = parse("--config", f.toString());
        assertThat(s.broker().cleaner())
                .isEqualTo(new io.kaas.storage.CleanerSettings(3, 33554432L, 65536, Duration.ofSeconds(2)));
        assertThat(s.warning()).isEmpty();
        assertThat(parse("--config", f.toString(), "--log-cleaner-threads", "1")
                        .broker()
                        .cleaner()
                        .threads())
                .isEqualTo(1);
        Path off = write("off.properties", "log.cleaner.enable=false\n");
        assertThat(parse("--config", off.toString()).broker().cleaner().threads())
                .isZero();
        assertThat(parse().broker().cleaner()).isEqualTo(io.kaas.storage.CleanerSettings.DEFAULTS);
    }

    @Test
    void securityKeysReachTheListeners() throws Exception {
        Path f = write("secure.properties", """
                listeners=SASL_SSL://127.0.0.1:9094,INTERNAL://127.0.0.1:9095
                listener.security.protocol.map=SASL_SSL:SASL_SSL,INTERNAL:SASL_PLAINTEXT
                ssl.keystore.location=/etc/kaas/broker.p12
                ssl.keystore.password=changeit
                sasl.enabled.mechanisms=SCRAM-SHA-512
                listener.name.internal.sasl.enabled.mechanisms=PLAIN
                super.users=User:admin
                listener.name.internal.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="x";
                principal.builder.class=com.example.Builder
                """);
        BrokerLaunch.Settings s = parse("--config", f.toString());
        assertThat(s.security().protocolOf("INTERNAL")).isEqualTo(SecurityProtocol.SASL_PLAINTEXT);
        assertThat(s.security().saslMechanisms("SASL_SSL")).containsExactly("SCRAM-SHA-512");
        assertThat(s.security().saslMechanisms("INTERNAL")).containsExactly("PLAIN");
        assertThat(s.security().superUsers()).containsExactly("User:admin");
        // Keys Apache would use but kaas does not (PLAIN checks the SCRAM store, principals come from TLS/SASL).
        assertThat(s.warning())
                .hasValueSatisfying(w -> assertThat(w)
                        .contains(
                                "2 key(s)", "listener.name.internal.plain.sasl.jaas.config", "principal.builder.class")
                        .doesNotContain("user_admin"));
    }

    /** A SASL_SSL-only cluster as Apache's: the inter-broker keys and the broker's own login from the file. */
    private static final String SASL_SSL_CLUSTER = """
            listeners=SASL_SSL://127.0.0.1:9093
            ssl.keystore.location=/etc/kaas/broker.p12
            ssl.keystore.password=Hunter2-secret
            sasl.enabled.mechanisms=SCRAM-SHA-512
            %s
            """;

    private static final String BROKER_LOGIN = "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config="
            + "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\" password=\"Hunter2-secret\";";

    @Test
    void interBrokerKeysFromTheFileOrFlagsWithApachesRules() throws Exception {
        Path f = write("cluster.properties", SASL_SSL_CLUSTER.formatted("""
                inter.broker.listener.name=sasl_ssl
                sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
                listener.name.sasl_ssl.plain.sasl.jaas.config=x
                """ + BROKER_LOGIN));
        BrokerLaunch.Settings s = parse("--config", f.toString(), "--coordinator", "etcd://127.0.0.1:2379");
        assertThat(s.security().settings())
                .containsEntry("inter.broker.listener.name", "sasl_ssl")
                .containsEntry("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        // Applied: the three keys and the broker's own login; a JAAS entry kaas never reads is named.
        assertThat(s.warning())
                .hasValueSatisfying(
                        w -> assertThat(w).contains("1 key(s)", "listener.name.sasl_ssl.plain.sasl.jaas.config"));
        // A flag naming the protocol replaces the file's listener name (the flag wins; Apache's "only one of" holds).
        Path internal = write("internal.properties", SASL_SSL_CLUSTER.formatted("""
                listeners=SASL_SSL://127.0.0.1:9093,INTERNAL://127.0.0.1:9094
                listener.security.protocol.map=SASL_SSL:SASL_SSL,INTERNAL:SSL
                inter.broker.listener.name=INTERNAL
                """));
        assertThat(parse("--config", internal.toString(), "--coordinator", "etcd://127.0.0.1:2379")
                        .security()
                        .settings())
                .containsEntry("inter.broker.listener.name", "INTERNAL");
        assertThat(parse(
                                "--config",
                                internal.toString(),
                                "--security-inter-broker-protocol",
                                "SASL_SSL",
                                "--sasl-mechanism-inter-broker-protocol",
                                "SCRAM-SHA-512")
                        .security()
                        .settings())
                .doesNotContainKey("inter.broker.listener.name")
                .containsEntry("security.inter.broker.protocol", "SASL_SSL");
    }

    @Test
    void badInterBrokerSettingsAreUsageErrorsNamingKeyAndRule() throws Exception {
        String[][] cases = {
            // {file keys, extra arguments, expected, expected}
            {
                "",
                "--coordinator etcd://127.0.0.1:1",
                "inter.broker.listener.name must be a listener name defined in advertised.listeners",
                "SASL_SSL"
            },
            {
                "inter.broker.listener.name=SASL_SSL\nsecurity.inter.broker.protocol=SASL_SSL",
                "",
                "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set",
                ""
            },
            {
                "",
                "--inter-broker-listener-name SASL_SSL --security-inter-broker-protocol SASL_SSL",
                "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set",
                ""
            },
            {
                "inter.broker.listener.name=REPLICATION",
                "",
                "Listener with name REPLICATION defined in inter.broker.listener.name "
                        + "not found in listener.security.protocol.map",
                ""
            },
            {
                "inter.broker.listener.name=SASL_SSL",
                "",
                "sasl.mechanism.inter.broker.protocol must be included in "
                        + "sasl.enabled.mechanisms when SASL is used for inter-broker communication",
                "GSSAPI"
            },
            {
                "",
                "--inter-broker-listener-name SASL_SSL --sasl-mechanism-inter-broker-protocol PLAIN",
                "sasl.mechanism.inter.broker.protocol",
                "[SCRAM-SHA-512]"
            },
            {
                "inter.broker.listener.name=SASL_SSL\nsasl.mechanism.inter.broker.protocol=SCRAM-SHA-512",
                "--coordinator etcd://127.0.0.1:1",
                "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                "KafkaServer"
            },
            {
                "security.inter.broker.protocol=TLS",
                "",
                "security.inter.broker.protocol",
                "PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"
            },
        };
        for (String[] c : cases) {
            Path f = write("bad-ib.properties", SASL_SSL_CLUSTER.formatted(c[0]));
            java.util.List<String> args = new java.util.ArrayList<>(
                    java.util.List.of("serve", "--config", f.toString(), "--admin-listener", "none"));
            if (!c[1].isEmpty()) {
                args.addAll(java.util.List.of(c[1].split(" ")));
            }
            KaasRun run = KaasRun.of(args.toArray(String[]::new));
            assertThat(run.exitCode()).as(c[0] + " " + c[1] + "\n" + run.err()).isEqualTo(ExitCodes.USAGE);
            assertThat(run.err()).as(c[0] + " " + c[1]).contains(c[2], c[3]).doesNotContain("Hunter2-secret");
        }
    }

    @Test
    void apachesStandardAuthorizerTurnsAclsOn() throws Exception {
        Path f = write("acl.properties", """
                authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
                allow.everyone.if.no.acl.found=true
                super.users=User:admin
                """);
        BrokerLaunch.Settings s = parse("--config", f.toString());
        assertThat(s.security().authorizerEnabled()).isTrue();
        assertThat(s.security().allowEveryoneIfNoAcl()).isTrue();
        assertThat(s.warning()).isEmpty();
    }

    @Test
    void badValuesAreUsageErrorsNamingKeyAndRuleNeverTheSecret() throws Exception {
        String[][] cases = {
            {"log.segment.bytes=12", "log.segment.bytes", "at least 1024"},
            {"node.id=one", "node.id", "INT"},
            {"ssl.client.auth=sometimes", "ssl.client.auth", "one of: required, requested, none"},
            {
                "authorizer.class.name=kafka.security.authorizer.AclAuthorizer",
                "authorizer.class.name",
                "StandardAuthorizer only"
            },
            {"allow.everyone.if.no.acl.found=maybe", "allow.everyone.if.no.acl.found", "true or false"},
            {
                "listeners=SASL_PLAINTEXT://127.0.0.1:0\nsasl.enabled.mechanisms=GSSAPI",
                "sasl.enabled.mechanisms",
                "GSSAPI"
            },
            {
                "listeners=SASL_PLAINTEXT://127.0.0.1:0\nsasl.enabled.mechanisms=OAUTHBEARER",
                "sasl.oauthbearer.jwks.endpoint.url",
                "JWKS"
            },
            {
                "listeners=SSL://127.0.0.1:0\nssl.keystore.password=Hunter2-secret",
                "ssl.keystore.location",
                "needs a keystore"
            },
            {"listeners=FOO://127.0.0.1:0", "listener.security.protocol.map", "FOO"},
            {"log.dirs=/a,/a/b", "log.dirs", "overlap"},
            {
                "listeners=SSL://127.0.0.1:0\nssl.keystore.location=/nonexistent/broker.p12\nssl.keystore.password=Hunter2-secret\n"
                        + "log.dirs=" + dir.resolve("ks-data").toString().replace("\\", "/"),
                "/nonexistent/broker.p12",
                "keystore"
            },
        };
        for (String[] c : cases) {
            Path f = write("bad.properties", c[0]);
            // No admin listener: the default port may be taken on a shared machine, and this is about the file.
            KaasRun run = KaasRun.of("serve", "--config", f.toString(), "--admin-listener", "none");
            assertThat(run.exitCode()).as(c[0] + "\n" + run.err()).isEqualTo(ExitCodes.USAGE);
            assertThat(run.err()).as(c[0]).contains(c[1], c[2]).doesNotContain("Hunter2-secret");
            assertThat(run.out()).isEmpty();
        }
    }

    /**
     * End to end: a user added offline, {@code kaas serve --config} in a child JVM with a SASL listener
     * from the file (and one Apache-only key), a PLAIN client logging in; the warning is one line.
     */
    @Test
    void servesTheFilesSaslListenerToAUserAddedOffline() throws Exception {
        Path data = java.nio.file.Files.createDirectories(dir.resolve("data")); // kaas user creates no data dir
        java.io.InputStream stdin = System.in;
        System.setIn(new java.io.ByteArrayInputStream("Pw-of-ops\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        try {
            assertThat(KaasRun.of("user", "add", "ops", "--data-dir", data.toString(), "--password-stdin")
                            .exitCode())
                    .isZero();
        } finally {
            System.setIn(stdin);
        }
        Path f = write("sasl.properties", """
                listeners=SASL_PLAINTEXT://127.0.0.1:0
                sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256
                num.recovery.threads.per.data.dir=1
                log.dirs=%s
                """.formatted(data));
        Path log = dir.resolve("serve.log");
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        ChildJvm.classpath(),
                        "io.kaas.cli.Kaas",
                        "serve",
                        "--config",
                        f.toString(),
                        "--admin-listener",
                        "none")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            java.util.regex.Pattern listening =
                    java.util.regex.Pattern.compile("advertised SASL_PLAINTEXT://127\\.0\\.0\\.1:(\\d+)");
            java.util.regex.Matcher m = org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> listening.matcher(Files.readString(log)), java.util.regex.Matcher::find);
            assertThat(Files.readString(log).lines().filter(l -> l.contains("do not apply")))
                    .containsExactly("kaas serve: warning: " + f
                            + ": 1 key(s) do not apply to kaas and are ignored: num.recovery.threads.per.data.dir");
            java.util.Properties props = new java.util.Properties();
            props.put("bootstrap.servers", "127.0.0.1:" + m.group(1));
            props.put("security.protocol", "SASL_PLAINTEXT");
            props.put("sasl.mechanism", "PLAIN");
            props.put(
                    "sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"ops\" password=\"Pw-of-ops\";");
            try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(props)) {
                assertThat(admin.describeCluster().clusterId().get()).isNotEmpty();
            }
        } finally {
            p.destroy();
            p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void missingFileIsAUsageError() {
        KaasRun run =
                KaasRun.of("serve", "--config", dir.resolve("nope.properties").toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("nope.properties");
    }
}
