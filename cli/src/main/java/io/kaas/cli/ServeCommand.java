package io.kaas.cli;

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
 * {@code kaas serve}: the Kafka-compatible broker. Runs until SIGTERM/SIGINT, then shuts down cleanly:
 * stops accepting, answers requests in flight, closes every partition (fsync, manifest, checkpoint at EOF,
 * locks).
 *
 * <p>Each option below is one row of the broker's settings table ({@code BrokerSettings}): this class only
 * declares the flag (its name, label and arity), so that building the command tree names no broker type
 * and offline commands start without the broker's jars. The row's key, variable, default and rule are the
 * table's; the help text is {@code ServeOptions.properties}, rendered from the table; {@link BrokerLaunch}
 * resolves the values; cli's {@code ServeSettingsTest} fails when a row and an option do not match.
 */
@Command(
        name = "serve",
        header = "Run the Kafka-compatible broker on a data directory.",
        resourceBundle = "io.kaas.cli.ServeOptions",
        description = {
            "Serves Kafka's wire protocol to unmodified Kafka clients and tools. With no arguments it "
                    + "listens on localhost:9092 with data in ./kaas-data.",
            "",
            "Each setting can be given three ways: the option, its environment variable, or its server.properties "
                    + "key in the --config file (both named in its description). The option wins, then the variable, "
                    + "then the file, then the default. A bad value is a usage error naming where it came from, the "
                    + "key and the rule. SIGTERM or SIGINT shut the broker down cleanly."
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
            description = "Read an Apache server.properties: the key named in each option below, the listener "
                    + "security keys (listener.security.protocol.map, ssl.*, sasl.enabled.mechanisms, listener.name.*.*, "
                    + "max.connections[.per.ip]) and Apache's older names (broker.id, log.cleaner.enable). "
                    + "Keys that do not apply are named in one warning (env KAAS_CONFIG).")
    Path configFile;

    @Option(names = "--listeners", paramLabel = "LISTENERS")
    String listeners;

    @Option(names = "--log-dirs", paramLabel = "DIRS")
    String logDirs;

    @Option(names = "--log-dirs-placement", paramLabel = "RULE")
    String logDirsPlacement;

    @Option(names = "--advertised-listeners", paramLabel = "LISTENERS")
    String advertisedListeners;

    @Option(names = "--in-memory")
    Boolean inMemory;

    @Option(names = "--broker-id", paramLabel = "ID")
    String brokerId;

    @Option(names = "--cluster-id", paramLabel = "ID")
    String clusterId;

    @Option(names = "--flush-interval-messages", paramLabel = "N")
    String flushIntervalMessages;

    @Option(names = "--segment-bytes", paramLabel = "BYTES")
    String segmentBytes;

    @Option(names = "--retention-check-interval", paramLabel = "DURATION", converter = DurationConverter.class)
    Duration retentionCheckInterval;

    @Option(names = "--auto-create-topics", negatable = true, defaultValue = "true", fallbackValue = "true")
    boolean autoCreateTopics;

    @Option(names = "--num-partitions", paramLabel = "N")
    String numPartitions;

    @Option(names = "--socket-request-max-bytes", paramLabel = "BYTES")
    String socketRequestMaxBytes;

    @Option(names = "--socket-send-buffer-bytes", paramLabel = "BYTES")
    String socketSendBufferBytes;

    @Option(names = "--socket-receive-buffer-bytes", paramLabel = "BYTES")
    String socketReceiveBufferBytes;

    @Option(names = "--num-io-threads", paramLabel = "N")
    String numIoThreads;

    @Option(names = "--num-network-threads", paramLabel = "N")
    String numNetworkThreads;

    @Option(names = "--max-incremental-fetch-session-cache-slots", paramLabel = "N")
    String fetchSessionCacheSlots;

    @Option(names = "--log-cleaner-threads", paramLabel = "N")
    String logCleanerThreads;

    @Option(names = "--log-cleaner-dedupe-buffer-size", paramLabel = "BYTES")
    String logCleanerDedupeBufferSize;

    @Option(names = "--log-cleaner-io-buffer-size", paramLabel = "BYTES")
    String logCleanerIoBufferSize;

    @Option(names = "--log-cleaner-backoff-ms", paramLabel = "MS")
    String logCleanerBackoffMs;

    @Option(names = "--authorizer-class-name", paramLabel = "CLASS")
    String authorizerClassName;

    @Option(names = "--super-users", paramLabel = "User:NAME[;User:NAME...]")
    String superUsers;

    @Option(
            names = "--allow-everyone-if-no-acl-found",
            paramLabel = "true|false",
            arity = "0..1",
            fallbackValue = "true")
    Boolean allowEveryoneIfNoAclFound;

    @Option(names = "--quota-window-num", paramLabel = "N")
    String quotaWindowNum;

    @Option(names = "--quota-window-size-seconds", paramLabel = "SECONDS")
    String quotaWindowSizeSeconds;

    @Option(names = "--coordinator", paramLabel = "URI")
    String coordinator;

    @Option(names = "--inter-broker-listener-name", paramLabel = "LISTENER")
    String interBrokerListenerName;

    @Option(names = "--security-inter-broker-protocol", paramLabel = "PROTOCOL")
    String securityInterBrokerProtocol;

    @Option(names = "--sasl-mechanism-inter-broker-protocol", paramLabel = "MECHANISM")
    String saslMechanismInterBrokerProtocol;

    @Option(names = "--delegation-token-secret-key", paramLabel = "KEY")
    String delegationTokenSecretKey;

    @Option(names = "--delegation-token-max-lifetime", paramLabel = "DURATION", converter = DurationConverter.class)
    Duration delegationTokenMaxLifetime;

    @Option(names = "--delegation-token-expiry-time", paramLabel = "DURATION", converter = DurationConverter.class)
    Duration delegationTokenExpiryTime;

    @Option(
            names = "--delegation-token-expiry-check-interval",
            paramLabel = "DURATION",
            converter = DurationConverter.class)
    Duration delegationTokenExpiryCheckInterval;

    @Option(names = "--coordinator-lease-ttl", paramLabel = "DURATION", converter = DurationConverter.class)
    Duration coordinatorLeaseTtl;

    @Option(names = "--max-open-files", paramLabel = "N")
    String maxOpenFiles;

    @Option(names = "--transaction-version", paramLabel = "1|2")
    String transactionVersion;

    @Option(names = "--transaction-max-timeout", paramLabel = "DURATION", converter = DurationConverter.class)
    Duration transactionMaxTimeout;

    @Option(names = "--transactional-id-expiration", paramLabel = "DURATION", converter = DurationConverter.class)
    Duration transactionalIdExpiration;

    @Option(names = "--admin-listener", paramLabel = "HOST:PORT")
    String adminListener;

    @Option(names = "--metrics-per-partition", negatable = true, defaultValue = "true", fallbackValue = "true")
    boolean metricsPerPartition;

    @Option(names = "--log-format", paramLabel = "FORMAT")
    String logFormat;

    @Option(names = "--log-level", paramLabel = "LEVEL")
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
