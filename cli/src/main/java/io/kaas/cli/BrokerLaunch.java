package io.kaas.cli;

import io.kaas.broker.KaasBroker;
import io.kaas.broker.ServerProperties;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.InterBrokerListener;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.broker.txn.TransactionConfig;
import io.kaas.cli.log.LogSetup;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.Endpoint;
import io.kaas.protocol.SocketBuffers;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.ExitCodes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * What {@code kaas serve}'s options start: the broker configuration they describe (the config file as
 * the base, each flag or {@code KAAS_*} variable over it), then the broker, until SIGTERM/SIGINT. Only
 * {@link ServeCommand#call} reaches this class, so only {@code serve}'s class path needs the broker's
 * jars (bin/kaas, lib/broker.classpath).
 */
final class BrokerLaunch {
    private final ServeCommand serve;

    BrokerLaunch(ServeCommand serve) {
        this.serve = serve;
    }

    /**
     * What {@code kaas serve} starts: the broker, its listeners' security, its transaction settings, the
     * config file's warning, and how it joins other brokers over a shared directory (or null).
     */
    record Settings(
            BrokerConfig broker,
            SecurityConfig security,
            TransactionConfig transactions,
            Optional<String> warning,
            ClusterConfig cluster) {}

    /** The broker configuration these options describe. */
    BrokerConfig toConfig() {
        return toSettings().broker();
    }

    /** The config file (if any) as the base; each option given as a flag or by its KAAS_* variable wins. */
    Settings toSettings() {
        try {
            ServerProperties file = serve.configFile == null ? null : ServerProperties.load(serve.configFile);
            BrokerConfig c = BrokerConfig.defaults();
            if (file != null) {
                c = file.applyTo(c);
            }
            if (wins(
                    "--listeners",
                    "KAAS_LISTENERS",
                    file != null && !file.listeners().isEmpty())) {
                c = c.withListeners(Endpoint.parseListOrJson(serve.listeners));
            }
            if (wins(
                    "--advertised-listeners",
                    "KAAS_ADVERTISED_LISTENERS",
                    file != null && file.sets("advertised.listeners"))) {
                c = c.withAdvertisedListeners(
                        serve.advertisedListeners == null || serve.advertisedListeners.isBlank()
                                ? List.of()
                                : Endpoint.parseListOrJson(serve.advertisedListeners));
            }
            if (wins(
                    "--broker-id",
                    "KAAS_BROKER_ID",
                    file != null && (file.sets("node.id") || file.sets("broker.id")))) {
                c = c.withBrokerId(serve.brokerId);
            }
            if (wins(
                    "--data-dir",
                    "KAAS_DATA_DIR",
                    file != null && file.dataDir().isPresent())) {
                c = c.withDataDir(serve.dataDir.dataDir());
            }
            if (wins(
                    "--flush-interval-messages",
                    "KAAS_FLUSH_INTERVAL_MESSAGES",
                    fileSets(file, "log.flush.interval.messages"))) {
                c = c.withFlushIntervalMessages(serve.flushIntervalMessages);
            }
            if (wins("--segment-bytes", "KAAS_SEGMENT_BYTES", fileSets(file, "log.segment.bytes"))) {
                c = c.withSegmentBytes(serve.segmentBytes);
            }
            if (wins(
                    "--retention-check-interval",
                    "KAAS_RETENTION_CHECK_INTERVAL",
                    fileSets(file, "log.retention.check.interval.ms"))) {
                c = c.withRetentionCheckInterval(serve.retentionCheckInterval);
            }
            if (wins("--auto-create-topics", "KAAS_AUTO_CREATE_TOPICS", fileSets(file, "auto.create.topics.enable"))) {
                c = c.withAutoCreateTopics(serve.autoCreateTopics);
            }
            if (wins("--num-partitions", "KAAS_NUM_PARTITIONS", fileSets(file, "num.partitions"))) {
                c = c.withDefaultPartitions(serve.numPartitions);
            }
            if (wins(
                    "--socket-request-max-bytes",
                    "KAAS_SOCKET_REQUEST_MAX_BYTES",
                    fileSets(file, "socket.request.max.bytes"))) {
                c = c.withSocketRequestMaxBytes(serve.socketRequestMaxBytes);
            }
            int send = wins(
                            "--socket-send-buffer-bytes",
                            "KAAS_SOCKET_SEND_BUFFER_BYTES",
                            fileSets(file, "socket.send.buffer.bytes"))
                    ? serve.socketSendBufferBytes
                    : c.socketBuffers().sendBytes();
            int receive = wins(
                            "--socket-receive-buffer-bytes",
                            "KAAS_SOCKET_RECEIVE_BUFFER_BYTES",
                            fileSets(file, "socket.receive.buffer.bytes"))
                    ? serve.socketReceiveBufferBytes
                    : c.socketBuffers().receiveBytes();
            c = c.withSocketBuffers(new SocketBuffers(send, receive));
            if (wins(
                    "--max-incremental-fetch-session-cache-slots",
                    "KAAS_MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS",
                    fileSets(file, "max.incremental.fetch.session.cache.slots"))) {
                c = c.withFetchSessionCacheSlots(serve.fetchSessionCacheSlots);
            }
            if (wins("--num-io-threads", "KAAS_NUM_IO_THREADS", fileSets(file, "num.io.threads"))) {
                c = c.withRequestHandlerThreads(serve.numIoThreads);
            }
            if (wins("--num-network-threads", "KAAS_NUM_NETWORK_THREADS", fileSets(file, "num.network.threads"))) {
                c = c.withNetworkThreads(
                        serve.numNetworkThreads == 0 ? BrokerConfig.defaultNetworkThreads() : serve.numNetworkThreads);
            }
            c = c.withCleaner(cleaner(c.cleaner(), file));
            // Not server.properties keys: the flag or its KAAS_* variable, else the default.
            c = c.withMaxOpenFiles(serve.maxOpenFiles)
                    .withAdminListener(parseAdminListener(serve.adminListener))
                    .withMetricsPerPartition(serve.metricsPerPartition);
            c = c.withClusterId(
                            serve.clusterId == null || serve.clusterId.isBlank()
                                    ? BrokerConfig.DEFAULT_CLUSTER_ID
                                    : serve.clusterId)
                    .withInMemory(serve.inMemory);
            SecurityConfig security = interBrokerOverFile(file == null ? SecurityConfig.none() : file.security())
                    .with(securityOverrides());
            security.validate(c.listeners());
            ClusterConfig cluster = null;
            if (serve.coordinator != null && !serve.coordinator.isBlank()) {
                if (serve.coordinatorLeaseTtl.toSeconds() < 3) {
                    throw new IllegalArgumentException(
                            "--coordinator-lease-ttl must be at least 3s, got " + serve.coordinatorLeaseTtl);
                }
                Duration third = Duration.ofMillis(serve.coordinatorLeaseTtl.toMillis() / 3);
                cluster = ClusterConfig.parse(serve.coordinator.trim())
                        .withTimings(serve.coordinatorLeaseTtl, third, third);
                if (c.inMemory()) {
                    throw new IllegalArgumentException(
                            "--coordinator shares a data directory; it cannot be combined with --in-memory");
                }
            }
            InterBrokerListener.resolve(security, c.listeners(), c.advertisedListeners(), cluster != null);
            return new Settings(
                    c,
                    security,
                    transactions(file),
                    file == null ? Optional.empty() : file.notAppliedWarning(),
                    cluster);
        } catch (IOException e) {
            throw new ParameterException(
                    serve.spec.commandLine(), "--config " + serve.configFile + ": cannot read: " + e.getMessage());
        } catch (IllegalArgumentException | ConfigException e) {
            throw new ParameterException(serve.spec.commandLine(), e.getMessage());
        }
    }

    /**
     * The config file's security keys, less the one of Apache's exclusive pair ({@code inter.broker.listener.name},
     * {@code security.inter.broker.protocol}) that a flag or variable replaces with the other: a flag wins over the
     * file, and Apache's "only one of" rule then holds between what the operator gave last.
     */
    private SecurityConfig interBrokerOverFile(SecurityConfig fromFile) {
        if (serve.interBrokerListenerName != null && serve.securityInterBrokerProtocol == null) {
            return fromFile.without(InterBrokerListener.SECURITY_PROTOCOL);
        }
        if (serve.securityInterBrokerProtocol != null && serve.interBrokerListenerName == null) {
            return fromFile.without(InterBrokerListener.LISTENER_NAME);
        }
        return fromFile;
    }

    /** The security and quota keys given as flags or KAAS_* variables: they win over the config file's. */
    private java.util.Map<String, String> securityOverrides() {
        java.util.Map<String, String> out = new java.util.HashMap<>();
        if (serve.authorizerClassName != null) {
            out.put(SecurityConfig.AUTHORIZER, serve.authorizerClassName.trim());
        }
        if (serve.superUsers != null) {
            out.put(SecurityConfig.SUPER_USERS, serve.superUsers.trim());
        }
        if (serve.allowEveryoneIfNoAclFound != null) {
            out.put(SecurityConfig.ALLOW_EVERYONE_IF_NO_ACL, serve.allowEveryoneIfNoAclFound.toString());
        }
        if (serve.interBrokerListenerName != null) {
            out.put(InterBrokerListener.LISTENER_NAME, serve.interBrokerListenerName.trim());
        }
        if (serve.securityInterBrokerProtocol != null) {
            out.put(InterBrokerListener.SECURITY_PROTOCOL, serve.securityInterBrokerProtocol.trim());
        }
        if (serve.saslMechanismInterBrokerProtocol != null) {
            out.put(InterBrokerListener.SASL_MECHANISM, serve.saslMechanismInterBrokerProtocol.trim());
        }
        if (serve.quotaWindowNum != null) {
            out.put(
                    org.apache.kafka.server.config.QuotaConfig.NUM_QUOTA_SAMPLES_CONFIG,
                    serve.quotaWindowNum.toString());
        }
        if (serve.quotaWindowSizeSeconds != null) {
            out.put(
                    org.apache.kafka.server.config.QuotaConfig.QUOTA_WINDOW_SIZE_SECONDS_CONFIG,
                    serve.quotaWindowSizeSeconds.toString());
        }
        return out;
    }

    private TransactionConfig transactions(ServerProperties file) {
        TransactionConfig t = TransactionConfig.DEFAULTS.withVersion(serve.transactionVersion);
        if (file != null) {
            t = file.applyTo(t);
        }
        if (wins(
                "--transaction-max-timeout",
                "KAAS_TRANSACTION_MAX_TIMEOUT",
                fileSets(file, "transaction.max.timeout.ms"))) {
            t = t.withMaxTimeout(serve.transactionMaxTimeout);
        }
        if (wins(
                "--transactional-id-expiration",
                "KAAS_TRANSACTIONAL_ID_EXPIRATION",
                fileSets(file, "transactional.id.expiration.ms"))) {
            t = t.withIdExpiration(serve.transactionalIdExpiration);
        }
        return t;
    }

    /** The log.cleaner.* settings: each flag (or KAAS_* variable) over the config file's key. */
    private CleanerSettings cleaner(CleanerSettings base, ServerProperties file) {
        int threads = wins(
                        "--log-cleaner-threads",
                        "KAAS_LOG_CLEANER_THREADS",
                        fileSets(file, "log.cleaner.threads") || fileSets(file, "log.cleaner.enable"))
                ? serve.logCleanerThreads
                : base.threads();
        long dedupe = wins(
                        "--log-cleaner-dedupe-buffer-size",
                        "KAAS_LOG_CLEANER_DEDUPE_BUFFER_SIZE",
                        fileSets(file, "log.cleaner.dedupe.buffer.size"))
                ? serve.logCleanerDedupeBufferSize
                : base.dedupeBufferBytes();
        int io = wins(
                        "--log-cleaner-io-buffer-size",
                        "KAAS_LOG_CLEANER_IO_BUFFER_SIZE",
                        fileSets(file, "log.cleaner.io.buffer.size"))
                ? serve.logCleanerIoBufferSize
                : base.ioBufferBytes();
        Duration backoff = wins(
                        "--log-cleaner-backoff-ms",
                        "KAAS_LOG_CLEANER_BACKOFF_MS",
                        fileSets(file, "log.cleaner.backoff.ms"))
                ? Duration.ofMillis(serve.logCleanerBackoffMs)
                : base.backoff();
        return new CleanerSettings(threads, dedupe, io, backoff);
    }

    /**
     * Does the option's value (flag, else its environment variable, else its default) apply? Yes unless
     * the config file sets the key and neither the flag nor the variable was given.
     */
    private boolean wins(String option, String env, boolean fileSetsIt) {
        OptionSpec o = serve.spec.findOption(option);
        return !fileSetsIt || (o != null && !o.originalStringValues().isEmpty()) || System.getenv(env) != null;
    }

    private static boolean fileSets(ServerProperties file, String key) {
        return file != null && file.sets(key);
    }

    /** The settings an operator checks first, on one line. */
    private String summary(BrokerConfig c) {
        return "listeners " + c.listeners()
                + (c.advertisedListeners().isEmpty() ? "" : ", advertised " + c.advertisedListeners())
                + ", data "
                + (c.inMemory() ? "in memory" : c.dataDir().toAbsolutePath().normalize())
                + ", broker id " + c.brokerId() + ", cluster id " + c.clusterId()
                + ", flush interval " + c.flushIntervalMessages() + " messages, segment " + c.segmentBytes() + " bytes"
                + ", retention check "
                + (c.retentionCheckInterval().isZero()
                        ? "off"
                        : c.retentionCheckInterval().toString())
                + ", auto-create " + (c.autoCreateTopics() ? c.defaultPartitions() + " partitions" : "off")
                + ", admin "
                + (c.adminListener() == null
                        ? "off"
                        : c.adminListener().getHostString() + ":"
                                + c.adminListener().getPort())
                + ", " + c.requestHandlerThreads() + " io / " + c.networkThreads() + " network threads"
                + ", per-partition metrics " + (c.metricsPerPartition() ? "on" : "off")
                + ", transaction.version " + serve.transactionVersion
                + ", log cleaner "
                + (c.cleaner().threads() == 0 ? "off" : c.cleaner().threads() + " thread(s)")
                + ", log " + serve.logFormat + "/" + serve.logLevel.toLowerCase(Locale.ROOT);
    }

    /** {@code host:port}, {@code [v6]:port}, or {@code none} (null: no admin listener). */
    static InetSocketAddress parseAdminListener(String value) {
        String v = value.trim();
        if (v.equalsIgnoreCase("none")) {
            return null;
        }
        Endpoint e;
        try {
            // The Kafka listener syntax's host:port rules, [v6] included.
            e = v.contains("://") ? null : Endpoint.parse("PLAINTEXT://" + v);
        } catch (IllegalArgumentException bad) {
            e = null;
        }
        if (e == null || e.host().isEmpty()) {
            throw new IllegalArgumentException("--admin-listener '" + value + "' is not HOST:PORT or 'none'");
        }
        return InetSocketAddress.createUnresolved(e.host(), e.port());
    }

    int run() throws InterruptedException {
        Settings settings = toSettings();
        BrokerConfig config = settings.broker();
        try {
            LogSetup.apply(LogSetup.Format.parse(serve.logFormat), serve.logLevel);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(serve.spec.commandLine(), e.getMessage());
        }
        settings.warning().ifPresent(w -> serve.spec.commandLine().getErr().println("kaas serve: warning: " + w));
        serve.spec.commandLine().getErr().flush();
        // Looked up here, not in a static field: building the command tree (kaas --version) must not start logging.
        Logger log = LoggerFactory.getLogger(ServeCommand.class);
        log.info("kaas {} starting: {}", KaasVersion.version(), summary(config));
        KaasBroker broker;
        try {
            broker = KaasBroker.create(config, settings.security(), settings.cluster())
                    .withTransactionConfig(settings.transactions())
                    .start();
        } catch (KafkaException e) {
            // A keystore or truststore that does not load (path, password, type): a configuration error.
            throw new ParameterException(
                    serve.spec.commandLine(),
                    e.getMessage() + (e.getCause() != null ? ": " + e.getCause().getMessage() : ""));
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(
                () -> {
                    broker.stop();
                    stopped.countDown();
                },
                "kaas-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        stopped.await();
        return ExitCodes.OK;
    }
}
