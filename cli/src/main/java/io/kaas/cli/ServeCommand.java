package io.kaas.cli;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.Endpoint;
import io.kaas.broker.KaasBroker;
import io.kaas.broker.ServerProperties;
import io.kaas.protocol.SocketBuffers;
import io.kaas.broker.security.AccessControl;
import io.kaas.broker.security.InterBrokerListener;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.broker.txn.TransactionConfig;
import io.kaas.cli.log.LogSetup;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.ExitCodes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kaas serve}: the Kafka-compatible broker. Every flag has a {@code KAAS_*} environment
 * variable; the flag wins. Runs until SIGTERM/SIGINT, then shuts down cleanly: stops accepting,
 * answers requests in flight, closes every partition (fsync, manifest, checkpoint at EOF, locks).
 */
@Command(name = "serve",
        header = "Run the Kafka-compatible broker on a data directory.",
        description = {
            "Serves Kafka's wire protocol to unmodified Kafka clients and tools. With no arguments it "
                    + "listens on localhost:9092 with data in ./kaas-data.",
            "",
            "Each option can also be set with the environment variable named in its description; "
                    + "an option given on the command line wins. SIGTERM or SIGINT shut the broker down "
                    + "cleanly."
        })
final class ServeCommand implements Callable<Integer> {

    @Mixin
    DataDirMixin dataDir;

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", defaultValue = "${env:KAAS_CONFIG}",
            description = "Read an Apache server.properties: listeners, advertised.listeners, "
                    + "listener.security.protocol.map, ssl.*, sasl.enabled.mechanisms, listener.name.*.*, super.users, "
                    + "node.id/broker.id, log.dirs, log.flush.interval.messages, log.segment.bytes, "
                    + "log.retention.check.interval.ms, num.partitions, auto.create.topics.enable, socket.request.max.bytes, "
                    + "socket.send.buffer.bytes, socket.receive.buffer.bytes, "
                    + "num.io.threads, num.network.threads, authorizer.class.name, allow.everyone.if.no.acl.found, "
                    + "max.connections[.per.ip], quota.window.*, inter.broker.listener.name, security.inter.broker.protocol, "
                    + "sasl.mechanism.inter.broker.protocol. "
                    + "Options and their environment variables win over the file; keys that do not apply are named in "
                    + "one warning; a bad value is a usage error naming the key (env KAAS_CONFIG).")
    Path configFile;

    @Option(names = "--listeners", paramLabel = "LISTENERS", defaultValue = "${env:KAAS_LISTENERS:-PLAINTEXT://localhost:9092}",
            description = "Where to listen, Kafka syntax: PLAINTEXT://host:port[,...] (env KAAS_LISTENERS, which "
                    + "also takes the JSON form; default PLAINTEXT://localhost:9092).")
    String listeners;

    @Option(names = "--advertised-listeners", paramLabel = "LISTENERS", defaultValue = "${env:KAAS_ADVERTISED_LISTENERS}",
            description = "What clients are told to connect to (env KAAS_ADVERTISED_LISTENERS; default: the listeners).")
    String advertisedListeners;

    @Option(names = "--in-memory", defaultValue = "${env:KAAS_IN_MEMORY:-false}",
            description = "Dev mode: keep everything in memory; nothing survives a stop (env KAAS_IN_MEMORY).")
    boolean inMemory;

    @Option(names = "--broker-id", paramLabel = "ID", defaultValue = "${env:KAAS_BROKER_ID:-0}",
            description = "Node id reported to clients (env KAAS_BROKER_ID; default 0).")
    int brokerId;

    @Option(names = "--cluster-id", paramLabel = "ID", defaultValue = "${env:KAAS_CLUSTER_ID}",
            description = "Cluster id reported to clients (env KAAS_CLUSTER_ID; default a fixed kaas id).")
    String clusterId;

    @Option(names = "--flush-interval-messages", paramLabel = "N", defaultValue = "${env:KAAS_FLUSH_INTERVAL_MESSAGES:-1}",
            description = "Fsync once N messages are pending; 1 makes every acks=all write durable before it is "
                    + "acknowledged (env KAAS_FLUSH_INTERVAL_MESSAGES; default 1).")
    long flushIntervalMessages;

    @Option(names = "--segment-bytes", paramLabel = "BYTES", defaultValue = "${env:KAAS_SEGMENT_BYTES:-1073741824}",
            description = "Default segment size; a topic's segment.bytes overrides it (env KAAS_SEGMENT_BYTES; default 1 GiB).")
    long segmentBytes;

    @Option(names = "--retention-check-interval", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:KAAS_RETENTION_CHECK_INTERVAL:-300s}",
            description = "How often retention runs: seconds, or with a unit (500ms, 30s, 5m, 1h); 0 disables "
                    + "(env KAAS_RETENTION_CHECK_INTERVAL; default 300s).")
    Duration retentionCheckInterval;

    @Option(names = "--auto-create-topics", negatable = true, defaultValue = "${env:KAAS_AUTO_CREATE_TOPICS:-true}",
            fallbackValue = "true",
            description = "Create unknown topics on first produce or metadata request (env KAAS_AUTO_CREATE_TOPICS; default on).")
    boolean autoCreateTopics;

    @Option(names = "--num-partitions", paramLabel = "N", defaultValue = "${env:KAAS_NUM_PARTITIONS:-1}",
            description = "Partitions of an auto-created topic (env KAAS_NUM_PARTITIONS; default 1).")
    int numPartitions;

    @Option(names = "--socket-request-max-bytes", paramLabel = "BYTES",
            defaultValue = "${env:KAAS_SOCKET_REQUEST_MAX_BYTES:-104857600}",
            description = "Largest request accepted; a bigger one closes its connection (env KAAS_SOCKET_REQUEST_MAX_BYTES; default 100 MiB).")
    int socketRequestMaxBytes;

    @Option(names = "--socket-send-buffer-bytes", paramLabel = "BYTES", defaultValue = "${env:KAAS_SOCKET_SEND_BUFFER_BYTES:--1}",
            description = "SO_SNDBUF of client connections; -1 leaves it to the operating system, which autotunes it "
                    + "(socket.send.buffer.bytes; env KAAS_SOCKET_SEND_BUFFER_BYTES; default -1, where Apache's is 102400).")
    int socketSendBufferBytes;

    @Option(names = "--socket-receive-buffer-bytes", paramLabel = "BYTES", defaultValue = "${env:KAAS_SOCKET_RECEIVE_BUFFER_BYTES:--1}",
            description = "SO_RCVBUF of client connections; -1 leaves it to the operating system "
                    + "(socket.receive.buffer.bytes; env KAAS_SOCKET_RECEIVE_BUFFER_BYTES; default -1, where Apache's is 102400).")
    int socketReceiveBufferBytes;

    @Option(names = "--num-io-threads", paramLabel = "N",
            defaultValue = "${env:KAAS_NUM_IO_THREADS:-" + BrokerConfig.DEFAULT_REQUEST_HANDLER_THREADS + "}",
            description = "Request-handler threads: they run every request's work, which can wait on the disk, so there are "
                    + "more of them than cores (num.io.threads; env KAAS_NUM_IO_THREADS; default "
                    + BrokerConfig.DEFAULT_REQUEST_HANDLER_THREADS + ", Apache's).")
    int numIoThreads;

    @Option(names = "--num-network-threads", paramLabel = "N", defaultValue = "${env:KAAS_NUM_NETWORK_THREADS:-0}",
            description = "Network threads (event loops shared by every listener) reading requests and writing responses; "
                    + "they never wait on the disk, so more than the cores only adds thread switches "
                    + "(num.network.threads; env KAAS_NUM_NETWORK_THREADS; default 0: one per core, at most 4).")
    int numNetworkThreads;

    @Option(names = "--max-incremental-fetch-session-cache-slots", paramLabel = "N",
            defaultValue = "${env:KAAS_MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS:-1000}",
            description = "Incremental fetch sessions (KIP-227) kept at once; 0 turns them off (env KAAS_MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS; default 1000).")
    int fetchSessionCacheSlots;

    @Option(names = "--log-cleaner-threads", paramLabel = "N", defaultValue = "${env:KAAS_LOG_CLEANER_THREADS:-1}",
            description = "Threads compacting topics with cleanup.policy=compact; 0 turns the cleaner off "
                    + "(log.cleaner.threads; env KAAS_LOG_CLEANER_THREADS; default 1).")
    int logCleanerThreads;

    @Option(names = "--log-cleaner-dedupe-buffer-size", paramLabel = "BYTES",
            defaultValue = "${env:KAAS_LOG_CLEANER_DEDUPE_BUFFER_SIZE:-134217728}",
            description = "Memory of the cleaner's key -> offset maps, shared by its threads; a pass whose dirty keys do not fit "
                    + "cleans up to where its map filled (log.cleaner.dedupe.buffer.size; env KAAS_LOG_CLEANER_DEDUPE_BUFFER_SIZE; default 128 MiB).")
    long logCleanerDedupeBufferSize;

    @Option(names = "--log-cleaner-io-buffer-size", paramLabel = "BYTES",
            defaultValue = "${env:KAAS_LOG_CLEANER_IO_BUFFER_SIZE:-524288}",
            description = "Each cleaner thread's read and write buffers (log.cleaner.io.buffer.size; env KAAS_LOG_CLEANER_IO_BUFFER_SIZE; default 512 KiB).")
    int logCleanerIoBufferSize;

    @Option(names = "--log-cleaner-backoff-ms", paramLabel = "MS", defaultValue = "${env:KAAS_LOG_CLEANER_BACKOFF_MS:-15000}",
            description = "How long a cleaner thread sleeps when no partition needs cleaning (log.cleaner.backoff.ms; "
                    + "env KAAS_LOG_CLEANER_BACKOFF_MS; default 15000).")
    long logCleanerBackoffMs;


    @Option(names = "--authorizer-class-name", paramLabel = "CLASS", defaultValue = "${env:KAAS_AUTHORIZER_CLASS_NAME}",
            description = "Enforce ACLs (__cluster/acls.json, kafka-acls, kaas acl) with Apache's own authorizer: "
                    + AccessControl.STANDARD_AUTHORIZER + ", the only class accepted; empty for none "
                    + "(server.properties authorizer.class.name; env KAAS_AUTHORIZER_CLASS_NAME; default none). "
                    + "Set --super-users too, or no one may change ACLs.")
    String authorizerClassName;

    @Option(names = "--super-users", paramLabel = "User:NAME[;User:NAME...]", defaultValue = "${env:KAAS_SUPER_USERS}",
            description = "Principals allowed everything, ACLs or not (server.properties super.users; env KAAS_SUPER_USERS).")
    String superUsers;

    @Option(names = "--allow-everyone-if-no-acl-found", paramLabel = "true|false", arity = "0..1", fallbackValue = "true",
            defaultValue = "${env:KAAS_ALLOW_EVERYONE_IF_NO_ACL_FOUND}",
            description = "With the authorizer: a resource without any ACL is open to all (server.properties "
                    + "allow.everyone.if.no.acl.found; env KAAS_ALLOW_EVERYONE_IF_NO_ACL_FOUND; default false, Apache's).")
    Boolean allowEveryoneIfNoAclFound;

    @Option(names = "--quota-window-num", paramLabel = "N", defaultValue = "${env:KAAS_QUOTA_WINDOW_NUM}",
            description = "Client quotas (kafka-configs --entity-type users|clients) measure rates over N samples "
                    + "(server.properties quota.window.num; env KAAS_QUOTA_WINDOW_NUM; default 11, Apache's).")
    Integer quotaWindowNum;

    @Option(names = "--quota-window-size-seconds", paramLabel = "SECONDS", defaultValue = "${env:KAAS_QUOTA_WINDOW_SIZE_SECONDS}",
            description = "Each client-quota sample's span; a request_percentage throttle lasts at most one "
                    + "(server.properties quota.window.size.seconds; env KAAS_QUOTA_WINDOW_SIZE_SECONDS; default 1).")
    Integer quotaWindowSizeSeconds;

    @Option(names = "--coordinator", paramLabel = "URI", defaultValue = "${env:KAAS_COORDINATOR}",
            description = "Share the data directory with other brokers, coordinated by etcd (etcd://HOST:PORT[,HOST:PORT...]) "
                    + "or by Kubernetes Leases and a ConfigMap (k8s://[NAMESPACE][?context=NAME]: in a pod its service "
                    + "account, else the kubeconfig; no namespace: the pod's or the context's): each broker registers "
                    + "under a lease (--broker-id must differ), one is elected controller and assigns partitions, "
                    + "a broker that cannot renew its lease stops acknowledging before it can expire, and its "
                    + "partitions move to the others. Without it: one broker owning the whole directory "
                    + "(env KAAS_COORDINATOR).")
    String coordinator;

    @Option(names = "--inter-broker-listener-name", paramLabel = "LISTENER", defaultValue = "${env:KAAS_INTER_BROKER_LISTENER_NAME}",
            description = "With --coordinator: the listener, advertised by every broker, that the brokers' requests to each other "
                    + "(transaction markers, AddPartitionsToTxn) go to, with its TLS (this broker's keystore and truststore) and "
                    + "SASL; not together with --security-inter-broker-protocol (server.properties inter.broker.listener.name; "
                    + "env KAAS_INTER_BROKER_LISTENER_NAME; default: the listener --security-inter-broker-protocol names).")
    String interBrokerListenerName;

    @Option(names = "--security-inter-broker-protocol", paramLabel = "PROTOCOL", defaultValue = "${env:KAAS_SECURITY_INTER_BROKER_PROTOCOL}",
            description = "With --coordinator: the brokers' requests to each other go to the listener named PLAINTEXT, SSL, "
                    + "SASL_PLAINTEXT or SASL_SSL (server.properties security.inter.broker.protocol; "
                    + "env KAAS_SECURITY_INTER_BROKER_PROTOCOL; default PLAINTEXT, Apache's).")
    String securityInterBrokerProtocol;

    @Option(names = "--sasl-mechanism-inter-broker-protocol", paramLabel = "MECHANISM",
            defaultValue = "${env:KAAS_SASL_MECHANISM_INTER_BROKER_PROTOCOL}",
            description = "With a SASL inter-broker listener: the mechanism brokers log in to each other with, enabled on that "
                    + "listener; the broker's own user and password are its JAAS entry, "
                    + "listener.name.<listener>.<mechanism>.sasl.jaas.config in --config (server.properties "
                    + "sasl.mechanism.inter.broker.protocol; env KAAS_SASL_MECHANISM_INTER_BROKER_PROTOCOL; default GSSAPI, "
                    + "Apache's, which kaas does not offer).")
    String saslMechanismInterBrokerProtocol;

    @Option(names = "--coordinator-lease-ttl", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:KAAS_COORDINATOR_LEASE_TTL:-6s}",
            description = "With --coordinator: how long a silent broker keeps its partitions; it stops acknowledging "
                    + "a third of it earlier, and they move a third of it after the store shows the lease expired "
                    + "(env KAAS_COORDINATOR_LEASE_TTL; whole seconds, at least 3s; default 6s).")
    Duration coordinatorLeaseTtl;

    /**
     * What {@code kaas serve} starts: the broker, its listeners' security, its transaction settings, the
     * config file's warning, and how it joins other brokers over a shared directory (or null).
     */
    record Settings(BrokerConfig broker, SecurityConfig security, TransactionConfig transactions, Optional<String> warning,
                    ClusterConfig cluster) {}
    @Option(names = "--max-open-files", paramLabel = "N", defaultValue = "${env:KAAS_MAX_OPEN_FILES:-0}",
            description = "Segment files held open at once; idle ones are closed past it and reopened on use, so "
                    + "partitions cost no file descriptor while idle (env KAAS_MAX_OPEN_FILES; default 0: 40%% of "
                    + "the process's open-file limit, ulimit -n).")
    int maxOpenFiles;
    @Option(names = "--transaction-version", paramLabel = "1|2", defaultValue = "${env:KAAS_TRANSACTION_VERSION:-" + TransactionConfig.DEFAULT_VERSION + "}",
            description = "The finalized feature transaction.version clients see: 2 is transaction protocol v2 (KIP-890 part 2: "
                    + "an epoch bump per transaction, partitions added by Produce; Apache 4.x's default), 1 the protocol "
                    + "before it (env KAAS_TRANSACTION_VERSION; default " + TransactionConfig.DEFAULT_VERSION + ").")
    int transactionVersion;

    @Option(names = "--transaction-max-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:KAAS_TRANSACTION_MAX_TIMEOUT:-15m}",
            description = "Longest transaction.timeout.ms a producer may ask for (server.properties transaction.max.timeout.ms; "
                    + "env KAAS_TRANSACTION_MAX_TIMEOUT; default 15m).")
    Duration transactionMaxTimeout;

    @Option(names = "--transactional-id-expiration", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:KAAS_TRANSACTIONAL_ID_EXPIRATION:-168h}",
            description = "A transactional id with no transaction open and no use for this long is forgotten "
                    + "(server.properties transactional.id.expiration.ms; env KAAS_TRANSACTIONAL_ID_EXPIRATION; default 168h, 7 days).")
    Duration transactionalIdExpiration;

    @Option(names = "--admin-listener", paramLabel = "HOST:PORT", defaultValue = "${env:KAAS_ADMIN_LISTENER:-127.0.0.1:9644}",
            description = "Where to serve /metrics (Prometheus), /healthz and /readyz over HTTP; 'none' turns it off "
                    + "(env KAAS_ADMIN_LISTENER; default 127.0.0.1:9644).")
    String adminListener;

    @Option(names = "--metrics-per-partition", negatable = true, defaultValue = "${env:KAAS_METRICS_PER_PARTITION:-true}",
            fallbackValue = "true",
            description = "Export per-partition series (offsets, size, consumer-group lag); turn off on brokers with very "
                    + "many partitions (env KAAS_METRICS_PER_PARTITION; default on).")
    boolean metricsPerPartition;

    @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "${env:KAAS_LOG_FORMAT:-text}",
            description = "Log lines on stderr as 'text' (timestamp, thread, level, logger, message) or 'json' "
                    + "(one object per line) (env KAAS_LOG_FORMAT; default text).")
    String logFormat;

    @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "${env:KAAS_LOG_LEVEL:-info}",
            description = "Least severe level logged: error, warn, info, debug or trace (env KAAS_LOG_LEVEL; default info).")
    String logLevel;

    /** The broker configuration these options describe. */
    BrokerConfig toConfig() {
        return toSettings().broker();
    }

    /** The config file (if any) as the base; each option given as a flag or by its KAAS_* variable wins. */
    Settings toSettings() {
        try {
            ServerProperties file = configFile == null ? null : ServerProperties.load(configFile);
            BrokerConfig c = BrokerConfig.defaults();
            if (file != null) {
                c = file.applyTo(c);
            }
            if (wins("--listeners", "KAAS_LISTENERS", file != null && !file.listeners().isEmpty())) {
                c = c.withListeners(Endpoint.parseListOrJson(listeners));
            }
            if (wins("--advertised-listeners", "KAAS_ADVERTISED_LISTENERS", file != null && file.sets("advertised.listeners"))) {
                c = c.withAdvertisedListeners(advertisedListeners == null || advertisedListeners.isBlank()
                        ? List.of() : Endpoint.parseListOrJson(advertisedListeners));
            }
            if (wins("--broker-id", "KAAS_BROKER_ID", file != null && (file.sets("node.id") || file.sets("broker.id")))) {
                c = c.withBrokerId(brokerId);
            }
            if (wins("--data-dir", "KAAS_DATA_DIR", file != null && file.dataDir().isPresent())) {
                c = c.withDataDir(dataDir.dataDir());
            }
            if (wins("--flush-interval-messages", "KAAS_FLUSH_INTERVAL_MESSAGES", fileSets(file, "log.flush.interval.messages"))) {
                c = c.withFlushIntervalMessages(flushIntervalMessages);
            }
            if (wins("--segment-bytes", "KAAS_SEGMENT_BYTES", fileSets(file, "log.segment.bytes"))) {
                c = c.withSegmentBytes(segmentBytes);
            }
            if (wins("--retention-check-interval", "KAAS_RETENTION_CHECK_INTERVAL", fileSets(file, "log.retention.check.interval.ms"))) {
                c = c.withRetentionCheckInterval(retentionCheckInterval);
            }
            if (wins("--auto-create-topics", "KAAS_AUTO_CREATE_TOPICS", fileSets(file, "auto.create.topics.enable"))) {
                c = c.withAutoCreateTopics(autoCreateTopics);
            }
            if (wins("--num-partitions", "KAAS_NUM_PARTITIONS", fileSets(file, "num.partitions"))) {
                c = c.withDefaultPartitions(numPartitions);
            }
            if (wins("--socket-request-max-bytes", "KAAS_SOCKET_REQUEST_MAX_BYTES", fileSets(file, "socket.request.max.bytes"))) {
                c = c.withSocketRequestMaxBytes(socketRequestMaxBytes);
            }
            int send = wins("--socket-send-buffer-bytes", "KAAS_SOCKET_SEND_BUFFER_BYTES", fileSets(file, "socket.send.buffer.bytes"))
                    ? socketSendBufferBytes : c.socketBuffers().sendBytes();
            int receive = wins("--socket-receive-buffer-bytes", "KAAS_SOCKET_RECEIVE_BUFFER_BYTES", fileSets(file, "socket.receive.buffer.bytes"))
                    ? socketReceiveBufferBytes : c.socketBuffers().receiveBytes();
            c = c.withSocketBuffers(new SocketBuffers(send, receive));
            if (wins("--max-incremental-fetch-session-cache-slots", "KAAS_MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS",
                    fileSets(file, "max.incremental.fetch.session.cache.slots"))) {
                c = c.withFetchSessionCacheSlots(fetchSessionCacheSlots);
            }
            if (wins("--num-io-threads", "KAAS_NUM_IO_THREADS", fileSets(file, "num.io.threads"))) {
                c = c.withRequestHandlerThreads(numIoThreads);
            }
            if (wins("--num-network-threads", "KAAS_NUM_NETWORK_THREADS", fileSets(file, "num.network.threads"))) {
                c = c.withNetworkThreads(numNetworkThreads == 0 ? BrokerConfig.defaultNetworkThreads() : numNetworkThreads);
            }
            c = c.withCleaner(cleaner(c.cleaner(), file));
            // Not server.properties keys: the flag or its KAAS_* variable, else the default.
            c = c.withMaxOpenFiles(maxOpenFiles)
                    .withAdminListener(parseAdminListener(adminListener))
                    .withMetricsPerPartition(metricsPerPartition);
            c = c.withClusterId(clusterId == null || clusterId.isBlank() ? BrokerConfig.DEFAULT_CLUSTER_ID : clusterId)
                    .withInMemory(inMemory);
            SecurityConfig security = interBrokerOverFile(file == null ? SecurityConfig.none() : file.security()).with(securityOverrides());
            security.validate(c.listeners());
            ClusterConfig cluster = null;
            if (coordinator != null && !coordinator.isBlank()) {
                if (coordinatorLeaseTtl.toSeconds() < 3) {
                    throw new IllegalArgumentException("--coordinator-lease-ttl must be at least 3s, got " + coordinatorLeaseTtl);
                }
                Duration third = Duration.ofMillis(coordinatorLeaseTtl.toMillis() / 3);
                cluster = ClusterConfig.parse(coordinator.trim()).withTimings(coordinatorLeaseTtl, third, third);
                if (c.inMemory()) {
                    throw new IllegalArgumentException("--coordinator shares a data directory; it cannot be combined with --in-memory");
                }
            }
            InterBrokerListener.resolve(security, c.listeners(), c.advertisedListeners(), cluster != null);
            return new Settings(c, security, transactions(file), file == null ? Optional.empty() : file.notAppliedWarning(), cluster);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--config " + configFile + ": cannot read: " + e.getMessage());
        } catch (IllegalArgumentException | ConfigException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /**
     * The config file's security keys, less the one of Apache's exclusive pair ({@code inter.broker.listener.name},
     * {@code security.inter.broker.protocol}) that a flag or variable replaces with the other: a flag wins over the
     * file, and Apache's "only one of" rule then holds between what the operator gave last.
     */
    private SecurityConfig interBrokerOverFile(SecurityConfig fromFile) {
        if (interBrokerListenerName != null && securityInterBrokerProtocol == null) {
            return fromFile.without(InterBrokerListener.SECURITY_PROTOCOL);
        }
        if (securityInterBrokerProtocol != null && interBrokerListenerName == null) {
            return fromFile.without(InterBrokerListener.LISTENER_NAME);
        }
        return fromFile;
    }

    /** The security and quota keys given as flags or KAAS_* variables: they win over the config file's. */
    private java.util.Map<String, String> securityOverrides() {
        java.util.Map<String, String> out = new java.util.HashMap<>();
        if (authorizerClassName != null) {
            out.put(SecurityConfig.AUTHORIZER, authorizerClassName.trim());
        }
        if (superUsers != null) {
            out.put(SecurityConfig.SUPER_USERS, superUsers.trim());
        }
        if (allowEveryoneIfNoAclFound != null) {
            out.put(SecurityConfig.ALLOW_EVERYONE_IF_NO_ACL, allowEveryoneIfNoAclFound.toString());
        }
        if (interBrokerListenerName != null) {
            out.put(InterBrokerListener.LISTENER_NAME, interBrokerListenerName.trim());
        }
        if (securityInterBrokerProtocol != null) {
            out.put(InterBrokerListener.SECURITY_PROTOCOL, securityInterBrokerProtocol.trim());
        }
        if (saslMechanismInterBrokerProtocol != null) {
            out.put(InterBrokerListener.SASL_MECHANISM, saslMechanismInterBrokerProtocol.trim());
        }
        if (quotaWindowNum != null) {
            out.put(org.apache.kafka.server.config.QuotaConfig.NUM_QUOTA_SAMPLES_CONFIG, quotaWindowNum.toString());
        }
        if (quotaWindowSizeSeconds != null) {
            out.put(org.apache.kafka.server.config.QuotaConfig.QUOTA_WINDOW_SIZE_SECONDS_CONFIG, quotaWindowSizeSeconds.toString());
        }
        return out;
    }

    private TransactionConfig transactions(ServerProperties file) {
        TransactionConfig t = TransactionConfig.DEFAULTS.withVersion(transactionVersion);
        if (file != null) {
            t = file.applyTo(t);
        }
        if (wins("--transaction-max-timeout", "KAAS_TRANSACTION_MAX_TIMEOUT", fileSets(file, "transaction.max.timeout.ms"))) {
            t = t.withMaxTimeout(transactionMaxTimeout);
        }
        if (wins("--transactional-id-expiration", "KAAS_TRANSACTIONAL_ID_EXPIRATION", fileSets(file, "transactional.id.expiration.ms"))) {
            t = t.withIdExpiration(transactionalIdExpiration);
        }
        return t;
    }

    /** The log.cleaner.* settings: each flag (or KAAS_* variable) over the config file's key. */
    private CleanerSettings cleaner(CleanerSettings base, ServerProperties file) {
        int threads = wins("--log-cleaner-threads", "KAAS_LOG_CLEANER_THREADS",
                fileSets(file, "log.cleaner.threads") || fileSets(file, "log.cleaner.enable")) ? logCleanerThreads : base.threads();
        long dedupe = wins("--log-cleaner-dedupe-buffer-size", "KAAS_LOG_CLEANER_DEDUPE_BUFFER_SIZE",
                fileSets(file, "log.cleaner.dedupe.buffer.size")) ? logCleanerDedupeBufferSize : base.dedupeBufferBytes();
        int io = wins("--log-cleaner-io-buffer-size", "KAAS_LOG_CLEANER_IO_BUFFER_SIZE",
                fileSets(file, "log.cleaner.io.buffer.size")) ? logCleanerIoBufferSize : base.ioBufferBytes();
        Duration backoff = wins("--log-cleaner-backoff-ms", "KAAS_LOG_CLEANER_BACKOFF_MS", fileSets(file, "log.cleaner.backoff.ms"))
                ? Duration.ofMillis(logCleanerBackoffMs) : base.backoff();
        return new CleanerSettings(threads, dedupe, io, backoff);
    }

    /**
     * Does the option's value (flag, else its environment variable, else its default) apply? Yes unless
     * the config file sets the key and neither the flag nor the variable was given.
     */
    private boolean wins(String option, String env, boolean fileSetsIt) {
        OptionSpec o = spec.findOption(option);
        return !fileSetsIt || (o != null && !o.originalStringValues().isEmpty()) || System.getenv(env) != null;
    }

    private static boolean fileSets(ServerProperties file, String key) {
        return file != null && file.sets(key);
    }

    /** The settings an operator checks first, on one line. */
    private String summary(BrokerConfig c) {
        return "listeners " + c.listeners()
                + (c.advertisedListeners().isEmpty() ? "" : ", advertised " + c.advertisedListeners())
                + ", data " + (c.inMemory() ? "in memory" : c.dataDir().toAbsolutePath().normalize())
                + ", broker id " + c.brokerId() + ", cluster id " + c.clusterId()
                + ", flush interval " + c.flushIntervalMessages() + " messages, segment " + c.segmentBytes() + " bytes"
                + ", retention check " + (c.retentionCheckInterval().isZero() ? "off" : c.retentionCheckInterval().toString())
                + ", auto-create " + (c.autoCreateTopics() ? c.defaultPartitions() + " partitions" : "off")
                + ", admin " + (c.adminListener() == null ? "off" : c.adminListener().getHostString() + ":" + c.adminListener().getPort())
                + ", " + c.requestHandlerThreads() + " io / " + c.networkThreads() + " network threads"
                + ", per-partition metrics " + (c.metricsPerPartition() ? "on" : "off")
                + ", transaction.version " + transactionVersion
                + ", log cleaner " + (c.cleaner().threads() == 0 ? "off" : c.cleaner().threads() + " thread(s)")
                + ", log " + logFormat + "/" + logLevel.toLowerCase(Locale.ROOT);
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

    @Override
    public Integer call() throws InterruptedException {
        Settings settings = toSettings();
        BrokerConfig config = settings.broker();
        try {
            LogSetup.apply(LogSetup.Format.parse(logFormat), logLevel);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        settings.warning().ifPresent(w -> spec.commandLine().getErr().println("kaas serve: warning: " + w));
        spec.commandLine().getErr().flush();
        // Looked up here, not in a static field: building the command tree (kaas --version) must not start logging.
        Logger log = LoggerFactory.getLogger(ServeCommand.class);
        log.info("kaas {} starting: {}", KaasVersion.version(), summary(config));
        KaasBroker broker;
        try {
            broker = KaasBroker.create(config, settings.security(), settings.cluster())
                    .withTransactionConfig(settings.transactions()).start();
        } catch (KafkaException e) {
            // A keystore or truststore that does not load (path, password, type): a configuration error.
            throw new ParameterException(spec.commandLine(), e.getMessage()
                    + (e.getCause() != null ? ": " + e.getCause().getMessage() : ""));
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            broker.stop();
            stopped.countDown();
        }, "kaas-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        stopped.await();
        return ExitCodes.OK;
    }

    /** {@code 300}, {@code 300s}, {@code 500ms}, {@code 5m}, {@code 1h}, or ISO-8601 ({@code PT5M}). */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            try {
                if (v.startsWith("pt")) {
                    return Duration.parse(value.trim());
                }
                if (v.endsWith("ms")) {
                    return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
                }
                if (v.endsWith("s")) {
                    return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
                }
                if (v.endsWith("m")) {
                    return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
                }
                if (v.endsWith("h")) {
                    return Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
                }
                return Duration.ofSeconds(Long.parseLong(v));
            } catch (NumberFormatException | DateTimeParseException e) {
                throw new IllegalArgumentException("'" + value + "' is not a duration (e.g. 300, 30s, 5m, 1h, 500ms)");
            }
        }
    }

}
