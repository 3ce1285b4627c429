package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.broker.config.BrokerSettings;
import io.kaas.broker.config.Setting;
import io.kaas.broker.config.SettingValues;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The settings table ({@link BrokerSettings}) against what {@code kaas serve} offers: every row is an option,
 * a variable and a config-file key that all reach the same value; every option is a row; the help text
 * ({@code ServeOptions.properties}) and {@code docs/settings.md} are the table's rendering. Run with
 * {@code -Dkaas.settings.regenerate=true} to rewrite those two files after changing the table.
 */
class ServeSettingsTest {
    private static final Path ROOT =
            Path.of(System.getProperty("kaas.repo.root", "..")).toAbsolutePath().normalize();
    private static final Path BUNDLE = ROOT.resolve("cli/src/main/resources/io/kaas/cli/ServeOptions.properties");
    private static final Path DOC = ROOT.resolve("docs/settings.md");

    /** Options of serve that are not rows: the config file itself, and picocli's own. */
    private static final Set<String> NOT_ROWS = Set.of("--config", "--help", "--version");

    /**
     * A value for each row other than its default, in flag syntax, and the same value in key syntax. A row added
     * to the table without one here fails {@link #everyRowResolvesFromFlagVariableAndFileAlike}.
     */
    private static final Map<String, String[]> SAMPLES = Map.ofEntries(
            Map.entry("listeners", new String[] {"PLAINTEXT://127.0.0.1:19092"}),
            Map.entry("advertised.listeners", new String[] {"PLAINTEXT://kafka.example:9092"}),
            Map.entry("node.id", new String[] {"7"}),
            Map.entry("kaas.cluster.id", new String[] {"c1"}),
            Map.entry("log.dir", new String[] {"/srv/kaas-one"}),
            Map.entry("log.dirs", new String[] {"/srv/kaas"}),
            Map.entry("kaas.log.dirs.placement", new String[] {"bytes"}),
            Map.entry("kaas.in.memory", new String[] {"true"}),
            Map.entry("log.flush.interval.messages", new String[] {"100"}),
            Map.entry("log.segment.bytes", new String[] {"1048576"}),
            Map.entry("log.retention.check.interval.ms", new String[] {"10m", "600000"}),
            Map.entry("auto.create.topics.enable", new String[] {"false"}),
            Map.entry("num.partitions", new String[] {"3"}),
            Map.entry("socket.request.max.bytes", new String[] {"1000000"}),
            Map.entry("socket.send.buffer.bytes", new String[] {"65536"}),
            Map.entry("socket.receive.buffer.bytes", new String[] {"131072"}),
            Map.entry("num.io.threads", new String[] {"16"}),
            Map.entry("num.network.threads", new String[] {"2"}),
            Map.entry("max.incremental.fetch.session.cache.slots", new String[] {"0"}),
            Map.entry("log.cleaner.threads", new String[] {"3"}),
            Map.entry("log.cleaner.dedupe.buffer.size", new String[] {"33554432"}),
            Map.entry("log.cleaner.io.buffer.size", new String[] {"65536"}),
            Map.entry("log.cleaner.backoff.ms", new String[] {"2000"}),
            Map.entry(
                    "authorizer.class.name", new String[] {"org.apache.kafka.metadata.authorizer.StandardAuthorizer"}),
            Map.entry("super.users", new String[] {"User:admin"}),
            Map.entry("allow.everyone.if.no.acl.found", new String[] {"true"}),
            Map.entry("quota.window.num", new String[] {"5"}),
            Map.entry("quota.window.size.seconds", new String[] {"2"}),
            Map.entry("kaas.coordinator", new String[] {"etcd://127.0.0.1:2379"}),
            Map.entry("inter.broker.listener.name", new String[] {"PLAINTEXT"}),
            Map.entry("security.inter.broker.protocol", new String[] {"PLAINTEXT"}),
            Map.entry("sasl.mechanism.inter.broker.protocol", new String[] {"SCRAM-SHA-512"}),
            Map.entry("kaas.coordinator.lease.ttl.ms", new String[] {"9s", "9000"}),
            Map.entry("delegation.token.secret.key", new String[] {"a-token-key"}),
            Map.entry("delegation.token.max.lifetime.ms", new String[] {"48h", "172800000"}),
            Map.entry("delegation.token.expiry.time.ms", new String[] {"2h", "7200000"}),
            Map.entry("delegation.token.expiry.check.interval.ms", new String[] {"5m", "300000"}),
            Map.entry("kaas.max.open.files", new String[] {"64"}),
            Map.entry("kaas.transaction.version", new String[] {"1"}),
            Map.entry("transaction.max.timeout.ms", new String[] {"2m", "120000"}),
            Map.entry("transactional.id.expiration.ms", new String[] {"1h", "3600000"}),
            Map.entry("kaas.admin.listener", new String[] {"0.0.0.0:9100"}),
            Map.entry("kaas.metrics.per.partition", new String[] {"false"}),
            Map.entry("kaas.log.format", new String[] {"json"}),
            Map.entry("kaas.log.level", new String[] {"debug"}));

    @TempDir
    Path dir;

    private static CommandLine serve(String... args) {
        CommandLine kaas = Kaas.newCommandLine(Terminal.PLAIN);
        String[] all = new String[args.length + 1];
        all[0] = "serve";
        System.arraycopy(args, 0, all, 1, args.length);
        return kaas.parseArgs(all).subcommand().commandSpec().commandLine();
    }

    private static SettingValues values(Map<String, String> env, String... args) {
        ServeCommand command = serve(args).getCommand();
        return new BrokerLaunch(command, env).toSettings().values();
    }

    @Test
    void everyOptionIsARowAndEveryRowAnOption() {
        Set<String> options = serve().getCommandSpec().options().stream()
                .map(OptionSpec::longestName)
                .filter(n -> !NOT_ROWS.contains(n))
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> rows =
                BrokerSettings.all().stream().map(Setting::flag).collect(Collectors.toCollection(TreeSet::new));
        assertThat(options).isEqualTo(rows);
        assertThat(BrokerSettings.all().stream().map(Setting::key).distinct()).hasSameSizeAs(BrokerSettings.all());
    }

    @Test
    void everyRowResolvesFromFlagVariableAndFileAlike() throws IOException {
        for (Setting s : BrokerSettings.all()) {
            String[] sample = SAMPLES.get(s.key());
            assertThat(sample)
                    .as("a sample value of " + s.key() + " in SAMPLES")
                    .isNotNull();
            String flagText = sample[0];
            String keyText = sample.length > 1 ? sample[1] : sample[0];
            List<String> flagArgs = new ArrayList<>();
            if (s.type() == Type.BOOLEAN) {
                boolean negated = !Boolean.parseBoolean(flagText);
                flagArgs.add(negated ? "--no-" + s.flag().substring(2) : s.flag());
            } else {
                flagArgs.addAll(List.of(s.flag(), flagText));
            }
            List<String> args = flagArgs;
            Object expected = s.parse(keyText);
            assertThat(expected)
                    .as(s.key() + ": the sample must differ from the default")
                    .isNotEqualTo(s.defaultValue());

            SettingValues fromFlag = values(Map.of(), args.toArray(String[]::new));
            assertThat(fromFlag.get(s.key())).as(s.flag()).isEqualTo(expected);
            assertThat(fromFlag.source(s.key())).isEqualTo(SettingValues.Source.FLAG);

            SettingValues fromEnv = values(Map.of(s.env(), flagText));
            assertThat(fromEnv.get(s.key())).as(s.env()).isEqualTo(expected);
            assertThat(fromEnv.source(s.key())).isEqualTo(SettingValues.Source.ENV);

            Path file = Files.writeString(dir.resolve("server.properties"), s.key() + "=" + keyText + "\n");
            SettingValues fromFile = values(Map.of(), "--config", file.toString());
            assertThat(fromFile.get(s.key())).as(s.key() + " in the file").isEqualTo(expected);
            assertThat(fromFile.source(s.key())).isEqualTo(SettingValues.Source.FILE);

            SettingValues none = values(Map.of());
            assertThat(none.get(s.key())).as(s.key() + "'s default").isEqualTo(s.defaultValue());
        }
    }

    @Test
    void flagWinsOverVariableOverFileOverDefault() throws IOException {
        Path file = Files.writeString(
                dir.resolve("p.properties"), "num.partitions=3\nnum.io.threads=4\nlog.segment.bytes=4096\n");
        Map<String, String> env = Map.of("KAAS_NUM_PARTITIONS", "5", "KAAS_NUM_IO_THREADS", "6");
        SettingValues v = values(env, "--config", file.toString(), "--num-partitions", "7");
        assertThat(v.get("num.partitions")).isEqualTo(7);
        assertThat(v.get("num.io.threads")).isEqualTo(6);
        assertThat(v.get("log.segment.bytes")).isEqualTo(4096);
        assertThat(v.get("num.network.threads")).isNull();
        // An empty variable (a manifest's placeholder) means "none", as it did when picocli read it.
        assertThat(new BrokerLaunch(serve().getCommand(), Map.of("KAAS_ADVERTISED_LISTENERS", ""))
                        .toSettings()
                        .broker()
                        .advertisedListeners())
                .isEmpty();
        assertThat(v.source("num.network.threads")).isEqualTo(SettingValues.Source.DEFAULT);
    }

    @Test
    void aBadValueNamesItsSourceTheKeyAndTheRule() throws IOException {
        assertThatThrownBy(() -> values(Map.of("KAAS_NUM_IO_THREADS", "0")))
                .hasMessageContaining("KAAS_NUM_IO_THREADS")
                .hasMessageContaining("num.io.threads")
                .hasMessageContaining("at least 1");
        assertThatThrownBy(() -> values(Map.of(), "--segment-bytes", "12"))
                .hasMessageContaining("--segment-bytes")
                .hasMessageContaining("log.segment.bytes")
                .hasMessageContaining("at least 1024");
        Path file = Files.writeString(dir.resolve("bad.properties"), "num.partitions=0\n");
        assertThatThrownBy(() -> values(Map.of(), "--config", file.toString()))
                .hasMessageContaining(file.toString())
                .hasMessageContaining("num.partitions");
    }

    @Test
    void helpTextIsTheTablesRendering() throws IOException {
        upToDate(BUNDLE, renderBundle());
        // picocli wraps lines at dots too (server.|properties): compare without the white space.
        String help = KaasRun.of("serve", "--help").out().replaceAll("\\s+", "");
        assertThat(help)
                .contains("--segment-bytes=BYTESDefaultsegmentsize", "log.segment.bytes", "KAAS_SEGMENT_BYTES", "1GiB");
    }

    @Test
    void settingsDocIsTheTablesRendering() throws IOException {
        upToDate(DOC, renderDoc());
    }

    private static void upToDate(Path file, String rendered) throws IOException {
        if (Boolean.getBoolean("kaas.settings.regenerate")) {
            Files.writeString(file, rendered, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "")
                .as(ROOT.relativize(file) + " is rendered from BrokerSettings; rewrite it with "
                        + "mvn -q -B -o -pl cli -am test -Dtest=ServeSettingsTest -Dsurefire.failIfNoSpecifiedTests=false "
                        + "-Dkaas.settings.regenerate=true")
                .isEqualTo(rendered);
    }

    /** picocli's resource bundle of serve: each option's description, keyed by its name without the dashes. */
    static String renderBundle() {
        StringBuilder out = new StringBuilder();
        out.append("# kaas serve's option descriptions, rendered from the settings table (broker's BrokerSettings)\n")
                .append("# by cli's ServeSettingsTest; do not edit: change the table and regenerate.\n");
        for (Setting s : BrokerSettings.all()) {
            // picocli formats descriptions: a literal % is %%.
            String text = s.helpText().replace("%", "%%").replace("\\", "\\\\");
            out.append(s.flag().substring(2)).append(" = ").append(text).append('\n');
        }
        return out.toString();
    }

    /** docs/settings.md: the table as a page. */
    static String renderDoc() {
        StringBuilder out = new StringBuilder();
        out.append("# kaas serve settings\n\n")
                .append("<!-- Rendered from broker/src/main/java/io/kaas/broker/config/BrokerSettings.java by\n")
                .append("     cli's ServeSettingsTest (-Dkaas.settings.regenerate=true); do not edit by hand. -->\n\n")
                .append(
                        "Each setting of `kaas serve` is one row of one table (`BrokerSettings`): a `server.properties` ")
                .append("key (Apache's where Apache has the setting, else `kaas.*`), a flag, and a `KAAS_*` variable ")
                .append("(`KAAS_` and the flag, upper case). The flag wins, then the variable, then the key in the ")
                .append(
                        "`--config` file, then the default. Values are typed and checked by kafka-clients' `ConfigDef` ")
                .append("whatever their source, so a bad one is a usage error (exit 2) naming where it came from, the ")
                .append("key and the rule. Durations given as a flag or variable take a unit (`500ms`, `30s`, `5m`, ")
                .append("`1h`; a bare number is seconds); the `*.ms` keys take milliseconds. The Rule column is the ")
                .append(
                        "row's `ConfigDef` validator (`[1,...]`: at least 1); a row without one is checked where it is ")
                .append("used (the security rows by `SecurityConfig`, the log rows by the logging setup).\n\n")
                .append("The config file may also hold the listener security keys (`listener.security.protocol.map`, ")
                .append("`ssl.*`, `sasl.enabled.mechanisms`, `listener.name.<listener>.<key>`, `max.connections*`; ")
                .append("see [security.md](security.md)) and Apache's older names: `broker.id` (= `node.id`), ")
                .append("`log.cleaner.enable=false` (= `log.cleaner.threads=0`), ")
                .append("`controller.listener.names` (those listeners are left out). Any other key is named in one ")
                .append("warning line and ignored.\n\n")
                .append("| Key | Flag | Variable | Default | Rule | What |\n")
                .append("|---|---|---|---|---|---|\n");
        for (Setting s : BrokerSettings.all()) {
            out.append("| `")
                    .append(s.key())
                    .append("` | `")
                    .append(s.flag())
                    .append("` | `")
                    .append(s.env())
                    .append("` | ")
                    .append(s.defaultText())
                    .append(" | ")
                    .append(
                            s.validator() == null
                                    ? ""
                                    : s.validator().toString().replace("|", "\\|"))
                    .append(" | ")
                    .append(s.doc().replace("|", "\\|"))
                    .append(" |\n");
        }
        return out.toString();
    }
}
