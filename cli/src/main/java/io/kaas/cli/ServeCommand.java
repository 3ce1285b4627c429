package io.kaas.cli;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.AccessControl;
import io.kaas.broker.txn.TransactionConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kaas serve}: the Kafka-compatible broker. Every flag has a {@code KAAS_*} environment
 * variable; the flag wins. Runs until SIGTERM/SIGINT, then shuts down cleanly: stops accepting,
 * answers requests in flight, closes every partition (fsync, manifest, checkpoint at EOF, locks).
 */
@Command(
        name = "serve",
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

    @Option(
            names = "--config",
            paramLabel = "FILE",
            defaultValue = "${env:KAAS_CONFIG}",
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

    @Option(
            names = "--listeners",
            paramLabel = "LISTENERS",
            defaultValue = "${env:KAAS_LISTENERS:-PLAINTEXT://localhost:9092}",
            description = "Where to listen, Kafka syntax: PLAINTEXT://host:port[,...] (env KAAS_LISTENERS, which "
                    + "also takes the JSON form; default PLAINTEXT://localhost:9092).")
    String listeners;

    @Option(
            names = "--advertised-listeners",
            paramLabel = "LISTENERS",
            defaultValue = "${env:KAAS_ADVERTISED_LISTENERS}",
            description =
                    "What clients are told to connect to (env KAAS_ADVERTISED_LISTENERS; default: the listeners).")
    String advertisedListeners;

    @Option(
            names = "--in-memory",
            defaultValue = "${env:KAAS_IN_MEMORY:-false}",
            description = "Dev mode: keep everything in memory; nothing survives a stop (env KAAS_IN_MEMORY).")
    boolean inMemory;

    @Option(
            names = "--broker-id",
            paramLabel = "ID",
            defaultValue = "${env:KAAS_BROKER_ID:-0}",
            description = "Node id reported to clients (env KAAS_BROKER_ID; default 0).")
    int brokerId;

    @Option(
            names = "--cluster-id",
            paramLabel = "ID",
            defaultValue = "${env:KAAS_CLUSTER_ID}",
            description = "Cluster id reported to clients (env KAAS_CLUSTER_ID; default a fixed kaas id).")
    String clusterId;

    @Option(
            names = "--flush-interval-messages",
            paramLabel = "N",
            defaultValue = "${env:KAAS_FLUSH_INTERVAL_MESSAGES:-1}",
            description = "Fsync once N messages are pending; 1 makes every acks=all write durable before it is "
                    + "acknowledged (env KAAS_FLUSH_INTERVAL_MESSAGES; default 1).")
    long flushIntervalMessages;

    @Option(
            names = "--segment-bytes",
            paramLabel = "BYTES",
            defaultValue = "${env:KAAS_SEGMENT_BYTES:-1073741824}",
            description =
                    "Default segment size; a topic's segment.bytes overrides it (env KAAS_SEGMENT_BYTES; default 1 GiB).")
    long segmentBytes;

    @Option(
            names = "--retention-check-interval",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:KAAS_RETENTION_CHECK_INTERVAL:-300s}",
            description = "How often retention runs: seconds, or with a unit (500ms, 30s, 5m, 1h); 0 disables "
                    + "(env KAAS_RETENTION_CHECK_INTERVAL; default 300s).")
    Duration retentionCheckInterval;

    @Option(
            names = "--auto-create-topics",
            negatable = true,
            defaultValue = "${env:KAAS_AUTO_CREATE_TOPICS:-true}",
            fallbackValue = "true",
            description =
                    "Create unknown topics on first produce or metadata request (env KAAS_AUTO_CREATE_TOPICS; default on).")
    boolean autoCreateTopics;

    @Option(
            names = "--num-partitions",
            paramLabel = "N",
            defaultValue = "${env:KAAS_NUM_PARTITIONS:-1}",
            description = "Partitions of an auto-created topic (env KAAS_NUM_PARTITIONS; default 1).")
    int numPartitions;

    @Option(
            names = "--socket-request-max-bytes",
            paramLabel = "BYTES",
            defaultValue = "${env:KAAS_SOCKET_REQUEST_MAX_BYTES:-104857600}",
            description =
                    "Largest request accepted; a bigger one closes its connection (env KAAS_SOCKET_REQUEST_MAX_BYTES; default 100 MiB).")
    int socketRequestMaxBytes;

    @Option(
            names = "--socket-send-buffer-bytes",
            paramLabel = "BYTES",
            defaultValue = "${env:KAAS_SOCKET_SEND_BUFFER_BYTES:--1}",
            description =
                    "SO_SNDBUF of client connections; -1 leaves it to the operating system, which autotunes it "
                            + "(socket.send.buffer.bytes; env KAAS_SOCKET_SEND_BUFFER_BYTES; default -1, where Apache's is 102400).")
    int socketSendBufferBytes;

    @Option(
            names = "--socket-receive-buffer-bytes",
            paramLabel = "BYTES",
            defaultValue = "${env:KAAS_SOCKET_RECEIVE_BUFFER_BYTES:--1}",
            description =
                    "SO_RCVBUF of client connections; -1 leaves it to the operating system "
                            + "(socket.receive.buffer.bytes; env KAAS_SOCKET_RECEIVE_BUFFER_BYTES; default -1, where Apache's is 102400).")
    int socketReceiveBufferBytes;

    @Option(
            names = "--num-io-threads",
            paramLabel = "N",
            defaultValue = "${env:KAAS_NUM_IO_THREADS:-" + BrokerConfig.DEFAULT_REQUEST_HANDLER_THREADS + "}",
            description =
                    "Request-handler threads: they run every request's work, which can wait on the disk, so there are "
                            + "more of them than cores (num.io.threads; env KAAS_NUM_IO_THREADS; default "
                            + BrokerConfig.DEFAULT_REQUEST_HANDLER_THREADS + ", Apache's).")
    int numIoThreads;

    @Option(
            names = "--num-network-threads",
            paramLabel = "N",
            defaultValue = "${env:KAAS_NUM_NETWORK_THREADS:-0}",
            description =
                    "Network threads (event loops shared by every listener) reading requests and writing responses; "
                            + "they never wait on the disk, so more than the cores only adds thread switches "
                            + "(num.network.threads; env KAAS_NUM_NETWORK_THREADS; default 0: one per core, at most 4).")
    int numNetworkThreads;

    @Option(
            names = "--max-incremental-fetch-session-cache-slots",
            paramLabel = "N",
            defaultValue = "${env:KAAS_MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS:-1000}",
            description =
                    "Incremental fetch sessions (KIP-227) kept at once; 0 turns them off (env KAAS_MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS; default 1000).")
    int fetchSessionCacheSlots;

    @Option(
            names = "--log-cleaner-threads",
            paramLabel = "N",
            defaultValue = "${env:KAAS_LOG_CLEANER_THREADS:-1}",
            description = "Threads compacting topics with cleanup.policy=compact; 0 turns the cleaner off "
                    + "(log.cleaner.threads; env KAAS_LOG_CLEANER_THREADS; default 1).")
    int logCleanerThreads;

    @Option(
            names = "--log-cleaner-dedupe-buffer-size",
            paramLabel = "BYTES",
            defaultValue = "${env:KAAS_LOG_CLEANER_DEDUPE_BUFFER_SIZE:-134217728}",
            description =
                    "Memory of the cleaner's key -> offset maps, shared by its threads; a pass whose dirty keys do not fit "
                            + "cleans up to where its map filled (log.cleaner.dedupe.buffer.size; env KAAS_LOG_CLEANER_DEDUPE_BUFFER_SIZE; default 128 MiB).")
    long logCleanerDedupeBufferSize;

    @Option(
            names = "--log-cleaner-io-buffer-size",
            paramLabel = "BYTES",
            defaultValue = "${env:KAAS_LOG_CLEANER_IO_BUFFER_SIZE:-524288}",
            description =
                    "Each cleaner thread's read and write buffers (log.cleaner.io.buffer.size; env KAAS_LOG_CLEANER_IO_BUFFER_SIZE; default 512 KiB).")
    int logCleanerIoBufferSize;

    @Option(
            names = "--log-cleaner-backoff-ms",
            paramLabel = "MS",
            defaultValue = "${env:KAAS_LOG_CLEANER_BACKOFF_MS:-15000}",
            description = "How long a cleaner thread sleeps when no partition needs cleaning (log.cleaner.backoff.ms; "
                    + "env KAAS_LOG_CLEANER_BACKOFF_MS; default 15000).")
    long logCleanerBackoffMs;

    @Option(
            names = "--authorizer-class-name",
            paramLabel = "CLASS",
            defaultValue = "${env:KAAS_AUTHORIZER_CLASS_NAME}",
            description = "Enforce ACLs (__cluster/acls.json, kafka-acls, kaas acl) with Apache's own authorizer: "
                    + AccessControl.STANDARD_AUTHORIZER + ", the only class accepted; empty for none "
                    + "(server.properties authorizer.class.name; env KAAS_AUTHORIZER_CLASS_NAME; default none). "
                    + "Set --super-users too, or no one may change ACLs.")
    String authorizerClassName;

    @Option(
            names = "--super-users",
            paramLabel = "User:NAME[;User:NAME...]",
            defaultValue = "${env:KAAS_SUPER_USERS}",
            description =
                    "Principals allowed everything, ACLs or not (server.properties super.users; env KAAS_SUPER_USERS).")
    String superUsers;

    @Option(
            names = "--allow-everyone-if-no-acl-found",
            paramLabel = "true|false",
            arity = "0..1",
            fallbackValue = "true",
            defaultValue = "${env:KAAS_ALLOW_EVERYONE_IF_NO_ACL_FOUND}",
            description =
                    "With the authorizer: a resource without any ACL is open to all (server.properties "
                            + "allow.everyone.if.no.acl.found; env KAAS_ALLOW_EVERYONE_IF_NO_ACL_FOUND; default false, Apache's).")
    Boolean allowEveryoneIfNoAclFound;

    @Option(
            names = "--quota-window-num",
            paramLabel = "N",
            defaultValue = "${env:KAAS_QUOTA_WINDOW_NUM}",
            description = "Client quotas (kafka-configs --entity-type users|clients) measure rates over N samples "
                    + "(server.properties quota.window.num; env KAAS_QUOTA_WINDOW_NUM; default 11, Apache's).")
    Integer quotaWindowNum;

    @Option(
            names = "--quota-window-size-seconds",
            paramLabel = "SECONDS",
            defaultValue = "${env:KAAS_QUOTA_WINDOW_SIZE_SECONDS}",
            description = "Each client-quota sample's span; a request_percentage throttle lasts at most one "
                    + "(server.properties quota.window.size.seconds; env KAAS_QUOTA_WINDOW_SIZE_SECONDS; default 1).")
    Integer quotaWindowSizeSeconds;

    @Option(
            names = "--coordinator",
            paramLabel = "URI",
            defaultValue = "${env:KAAS_COORDINATOR}",
            description =
                    "Share the data directory with other brokers, coordinated by etcd (etcd://HOST:PORT[,HOST:PORT...]) "
                            + "or by Kubernetes Leases and a ConfigMap (k8s://[NAMESPACE][?context=NAME]: in a pod its service "
                            + "account, else the kubeconfig; no namespace: the pod's or the context's): each broker registers "
                            + "under a lease (--broker-id must differ), one is elected controller and assigns partitions, "
                            + "a broker that cannot renew its lease stops acknowledging before it can expire, and its "
                            + "partitions move to the others. Without it: one broker owning the whole directory "
                            + "(env KAAS_COORDINATOR).")
    String coordinator;

    @Option(
            names = "--inter-broker-listener-name",
            paramLabel = "LISTENER",
            defaultValue = "${env:KAAS_INTER_BROKER_LISTENER_NAME}",
            description =
                    "With --coordinator: the listener, advertised by every broker, that the brokers' requests to each other "
                            + "(transaction markers, AddPartitionsToTxn) go to, with its TLS (this broker's keystore and truststore) and "
                            + "SASL; not together with --security-inter-broker-protocol (server.properties inter.broker.listener.name; "
                            + "env KAAS_INTER_BROKER_LISTENER_NAME; default: the listener --security-inter-broker-protocol names).")
    String interBrokerListenerName;

    @Option(
            names = "--security-inter-broker-protocol",
            paramLabel = "PROTOCOL",
            defaultValue = "${env:KAAS_SECURITY_INTER_BROKER_PROTOCOL}",
            description =
                    "With --coordinator: the brokers' requests to each other go to the listener named PLAINTEXT, SSL, "
                            + "SASL_PLAINTEXT or SASL_SSL (server.properties security.inter.broker.protocol; "
                            + "env KAAS_SECURITY_INTER_BROKER_PROTOCOL; default PLAINTEXT, Apache's).")
    String securityInterBrokerProtocol;

    @Option(
            names = "--sasl-mechanism-inter-broker-protocol",
            paramLabel = "MECHANISM",
            defaultValue = "${env:KAAS_SASL_MECHANISM_INTER_BROKER_PROTOCOL}",
            description =
                    "With a SASL inter-broker listener: the mechanism brokers log in to each other with, enabled on that "
                            + "listener; the broker's own user and password are its JAAS entry, "
                            + "listener.name.<listener>.<mechanism>.sasl.jaas.config in --config (server.properties "
                            + "sasl.mechanism.inter.broker.protocol; env KAAS_SASL_MECHANISM_INTER_BROKER_PROTOCOL; default GSSAPI, "
                            + "Apache's, which kaas does not offer).")
    String saslMechanismInterBrokerProtocol;

    @Option(
            names = "--coordinator-lease-ttl",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:KAAS_COORDINATOR_LEASE_TTL:-6s}",
            description = "With --coordinator: how long a silent broker keeps its partitions; it stops acknowledging "
                    + "a third of it earlier, and they move a third of it after the store shows the lease expired "
                    + "(env KAAS_COORDINATOR_LEASE_TTL; whole seconds, at least 3s; default 6s).")
    Duration coordinatorLeaseTtl;

    @Option(
            names = "--max-open-files",
            paramLabel = "N",
            defaultValue = "${env:KAAS_MAX_OPEN_FILES:-0}",
            description = "Segment files held open at once; idle ones are closed past it and reopened on use, so "
                    + "partitions cost no file descriptor while idle (env KAAS_MAX_OPEN_FILES; default 0: 40%% of "
                    + "the process's open-file limit, ulimit -n).")
    int maxOpenFiles;

    @Option(
            names = "--transaction-version",
            paramLabel = "1|2",
            defaultValue = "${env:KAAS_TRANSACTION_VERSION:-" + TransactionConfig.DEFAULT_VERSION + "}",
            description =
                    "The finalized feature transaction.version clients see: 2 is transaction protocol v2 (KIP-890 part 2: "
                            + "an epoch bump per transaction, partitions added by Produce; Apache 4.x's default), 1 the protocol "
                            + "before it (env KAAS_TRANSACTION_VERSION; default " + TransactionConfig.DEFAULT_VERSION
                            + ").")
    int transactionVersion;

    @Option(
            names = "--transaction-max-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:KAAS_TRANSACTION_MAX_TIMEOUT:-15m}",
            description =
                    "Longest transaction.timeout.ms a producer may ask for (server.properties transaction.max.timeout.ms; "
                            + "env KAAS_TRANSACTION_MAX_TIMEOUT; default 15m).")
    Duration transactionMaxTimeout;

    @Option(
            names = "--transactional-id-expiration",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:KAAS_TRANSACTIONAL_ID_EXPIRATION:-168h}",
            description =
                    "A transactional id with no transaction open and no use for this long is forgotten "
                            + "(server.properties transactional.id.expiration.ms; env KAAS_TRANSACTIONAL_ID_EXPIRATION; default 168h, 7 days).")
    Duration transactionalIdExpiration;

    @Option(
            names = "--admin-listener",
            paramLabel = "HOST:PORT",
            defaultValue = "${env:KAAS_ADMIN_LISTENER:-127.0.0.1:9644}",
            description = "Where to serve /metrics (Prometheus), /healthz and /readyz over HTTP; 'none' turns it off "
                    + "(env KAAS_ADMIN_LISTENER; default 127.0.0.1:9644).")
    String adminListener;

    @Option(
            names = "--metrics-per-partition",
            negatable = true,
            defaultValue = "${env:KAAS_METRICS_PER_PARTITION:-true}",
            fallbackValue = "true",
            description =
                    "Export per-partition series (offsets, size, consumer-group lag); turn off on brokers with very "
                            + "many partitions (env KAAS_METRICS_PER_PARTITION; default on).")
    boolean metricsPerPartition;

    @Option(
            names = "--log-format",
            paramLabel = "FORMAT",
            defaultValue = "${env:KAAS_LOG_FORMAT:-text}",
            description = "Log lines on stderr as 'text' (timestamp, thread, level, logger, message) or 'json' "
                    + "(one object per line) (env KAAS_LOG_FORMAT; default text).")
    String logFormat;

    @Option(
            names = "--log-level",
            paramLabel = "LEVEL",
            defaultValue = "${env:KAAS_LOG_LEVEL:-info}",
            description =
                    "Least severe level logged: error, warn, info, debug or trace (env KAAS_LOG_LEVEL; default info).")
    String logLevel;

    @Override
    public Integer call() throws InterruptedException {
        // The broker is reached only from here, in a class of its own: building this command (kaas --help
        // lists it) reflects on this class's fields and methods, which name no broker type, so offline
        // commands build the whole tree on a class path without the broker's jars.
        return new BrokerLaunch(this).run();
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
