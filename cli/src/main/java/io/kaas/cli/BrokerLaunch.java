package io.kaas.cli;

import io.kaas.broker.KaasBroker;
import io.kaas.broker.ServerProperties;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.config.BrokerSettings;
import io.kaas.broker.config.Setting;
import io.kaas.broker.config.SettingValues;
import io.kaas.broker.security.InterBrokerListener;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.broker.txn.TransactionConfig;
import io.kaas.cli.log.LogSetup;
import io.kaas.cluster.ClusterConfig;
import io.kaas.storage.ExitCodes;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * What {@code kaas serve}'s options start: the broker configuration they describe (the config file as
 * the base, each flag or {@code KAAS_*} variable over it), then the broker, until SIGTERM/SIGINT. Only
 * {@link ServeCommand#call} reaches this class, so only {@code serve}'s class path needs the broker's
 * jars (bin/kaas, lib/broker.classpath).
 */
final class BrokerLaunch {
    private final ServeCommand serve;
    private final Map<String, String> environment;

    BrokerLaunch(ServeCommand serve) {
        this(serve, System.getenv());
    }

    /** With {@code environment} as the process's variables (tests). */
    BrokerLaunch(ServeCommand serve, Map<String, String> environment) {
        this.serve = serve;
        this.environment = Map.copyOf(environment);
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
            ClusterConfig cluster,
            SettingValues values) {}

    /** The broker configuration these options describe. */
    BrokerConfig toConfig() {
        return toSettings().broker();
    }

    /**
     * Every setting of the table ({@code BrokerSettings}) from its flag, else its {@code KAAS_*} variable, else
     * the config file, else its default ({@code SettingValues#resolve} decides); a bad value is a usage error.
     */
    Settings toSettings() {
        try {
            ServerProperties file = serve.configFile == null ? null : ServerProperties.load(serve.configFile);
            Map<String, String> flags = new HashMap<>();
            Map<String, String> env = new HashMap<>();
            ParseResult parsed = serve.spec.commandLine().getParseResult();
            for (Setting s : BrokerSettings.all()) {
                OptionSpec o = serve.spec.findOption(s.flag());
                if (o == null) {
                    throw new IllegalStateException(s.flag() + " is in the settings table but not an option");
                }
                if (parsed != null && parsed.hasMatchedOption(o)) {
                    putKeyText(flags, s, o.getValue());
                }
                String variable = environment.get(s.env());
                if (variable != null) {
                    putKeyText(
                            env,
                            s,
                            s.flagSyntax() == Setting.FlagSyntax.DURATION_MS
                                    ? new ServeCommand.DurationConverter().convert(variable)
                                    : variable);
                }
            }
            SettingValues values = SettingValues.resolve(
                    flags,
                    env,
                    file == null ? Map.of() : file.settings(),
                    file == null ? "" : file.source().toString());
            BrokerConfig c = values.brokerConfig();
            SecurityConfig security =
                    (file == null ? SecurityConfig.none() : file.security()).with(values.securitySettings());
            security.validate(c.listeners());
            ClusterConfig cluster = null;
            if (values.coordinator() != null) {
                Duration ttl = values.coordinatorLeaseTtl();
                Duration third = Duration.ofMillis(ttl.toMillis() / 3);
                cluster = ClusterConfig.parse(values.coordinator()).withTimings(ttl, third, third);
                if (c.inMemory()) {
                    throw new IllegalArgumentException(
                            "--coordinator shares a data directory; it cannot be combined with --in-memory");
                }
            }
            InterBrokerListener.resolve(security, c.listeners(), c.advertisedListeners(), cluster != null);
            return new Settings(
                    c,
                    security,
                    values.transactions(),
                    file == null ? Optional.empty() : file.notAppliedWarning(security),
                    cluster,
                    values);
        } catch (IOException e) {
            throw new ParameterException(
                    serve.spec.commandLine(), "--config " + serve.configFile + ": cannot read: " + e.getMessage());
        } catch (IllegalArgumentException | ConfigException e) {
            throw new ParameterException(serve.spec.commandLine(), e.getMessage());
        }
    }

    /**
     * {@code value}, a flag's or a variable's, in its row's key syntax: a duration in milliseconds, and no entry
     * for a 0 that means "the default".
     */
    private static void putKeyText(Map<String, String> out, Setting s, Object value) {
        String text = value instanceof Duration d ? Long.toString(d.toMillis()) : String.valueOf(value);
        if (s.flagSyntax() == Setting.FlagSyntax.ZERO_IS_DEFAULT && text.trim().equals("0")) {
            return;
        }
        out.put(s.key(), text);
    }

    /** The settings an operator checks first, on one line. */
    private static String summary(Settings settings) {
        BrokerConfig c = settings.broker();
        return "listeners " + c.listeners()
                + (c.advertisedListeners().isEmpty() ? "" : ", advertised " + c.advertisedListeners())
                + ", data "
                + (c.inMemory()
                        ? "in memory"
                        : c.pool().dirs().stream()
                                .map(d -> d.path().toAbsolutePath().normalize().toString())
                                .collect(java.util.stream.Collectors.joining(",")))
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
                + ", transaction.version " + settings.transactions().version()
                + ", log cleaner "
                + (c.cleaner().threads() == 0 ? "off" : c.cleaner().threads() + " thread(s)")
                + ", log " + settings.values().logFormat() + "/"
                + settings.values().logLevel().toLowerCase(Locale.ROOT);
    }

    int run() throws InterruptedException {
        Settings settings = toSettings();
        BrokerConfig config = settings.broker();
        try {
            LogSetup.apply(
                    LogSetup.Format.parse(settings.values().logFormat()),
                    settings.values().logLevel());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(serve.spec.commandLine(), e.getMessage());
        }
        settings.warning().ifPresent(w -> serve.spec.commandLine().getErr().println("kaas serve: warning: " + w));
        serve.spec.commandLine().getErr().flush();
        // Looked up here, not in a static field: building the command tree (kaas --version) must not start logging.
        Logger log = LoggerFactory.getLogger(ServeCommand.class);
        log.info("kaas {} starting: {}", KaasVersion.version(), summary(settings));
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
        // The home log dir failing stops the broker by itself: the process exits, non-zero, for its supervisor to see.
        broker.failed().thenRun(stopped::countDown);
        stopped.await();
        return broker.failed().isDone() ? ExitCodes.UNREADABLE : ExitCodes.OK;
    }
}
