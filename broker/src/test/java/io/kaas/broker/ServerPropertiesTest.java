package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.config.SettingValues;
import io.kaas.cluster.Endpoint;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** A server.properties sorted into table keys, security keys and the rest; Apache's older names folded. */
class ServerPropertiesTest {
    private static final Path FILE = Path.of("server.properties");

    private static ServerProperties parse(Map<String, String> raw) {
        return ServerProperties.parse(FILE, raw);
    }

    private static BrokerConfig broker(ServerProperties file) {
        return SettingValues.resolve(Map.of(), Map.of(), file.settings(), FILE.toString())
                .brokerConfig();
    }

    @Test
    void keysAreSortedIntoTableSecurityAndNotApplied() {
        ServerProperties p = parse(Map.of(
                "num.io.threads", "4",
                "ssl.keystore.location", "/etc/kaas/broker.p12",
                "super.users", "User:admin",
                "log.retention.hours", "168"));
        assertThat(p.settings()).containsOnlyKeys("num.io.threads", "super.users");
        assertThat(p.security().settings()).containsOnlyKeys("ssl.keystore.location");
        assertThat(p.notApplied(p.security())).containsExactly("log.retention.hours");
        assertThat(p.notAppliedWarning(p.security()))
                .hasValue("server.properties: 1 key(s) do not apply to kaas and are ignored: log.retention.hours");
    }

    @Test
    void apachesOlderNamesAreTheRowsKeys() {
        BrokerConfig c = broker(parse(Map.of("broker.id", "3", "log.dir", "/srv/kaas", "log.cleaner.enable", "false")));
        assertThat(c.brokerId()).isEqualTo(3);
        assertThat(c.dataDir()).isEqualTo(Path.of("/srv/kaas"));
        assertThat(c.cleaner().threads()).isZero();
        assertThat(broker(parse(Map.of("log.dir", "/a", "log.dirs", "/b"))).dataDir())
                .isEqualTo(Path.of("/b"));
        assertThatThrownBy(() -> parse(Map.of("node.id", "1", "broker.id", "2")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("broker.id")
                .hasMessageContaining("must equal node.id");
        assertThat(parse(Map.of("node.id", "1", "broker.id", "1"))
                        .notApplied(parse(Map.of()).security()))
                .isEmpty();
    }

    @Test
    void controllerListenersAreLeftOutAndNamed() {
        ServerProperties p = parse(Map.of(
                "listeners", "PLAINTEXT://:9092,CONTROLLER://:9093",
                "advertised.listeners", "PLAINTEXT://h:9092,CONTROLLER://h:9093",
                "controller.listener.names", "CONTROLLER"));
        BrokerConfig c = broker(p);
        assertThat(c.listeners()).containsExactly(new Endpoint("PLAINTEXT", "", 9092));
        assertThat(c.advertisedListeners()).containsExactly(new Endpoint("PLAINTEXT", "h", 9092));
        assertThat(p.notApplied(p.security())).containsExactly("listeners[CONTROLLER]");
        assertThatThrownBy(() ->
                        parse(Map.of("listeners", "CONTROLLER://:9093", "controller.listener.names", "CONTROLLER")))
                .hasMessageContaining("no broker listener left");
    }

    @Test
    void aBadValueNamesTheFileTheKeyAndTheRule() {
        ServerProperties p = parse(Map.of("log.segment.bytes", "12"));
        assertThatThrownBy(() -> broker(p))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.properties")
                .hasMessageContaining("log.segment.bytes")
                .hasMessageContaining("at least 1024");
    }

    @Test
    void flagBeatsVariableBeatsFileBeatsDefault() {
        Map<String, String> file = Map.of("num.partitions", "3", "num.io.threads", "4", "log.segment.bytes", "4096");
        SettingValues v = SettingValues.resolve(
                Map.of("num.partitions", "7"), Map.of("num.partitions", "5", "num.io.threads", "6"), file, "f");
        assertThat(v.get("num.partitions")).isEqualTo(7);
        assertThat(v.source("num.partitions")).isEqualTo(SettingValues.Source.FLAG);
        assertThat(v.get("num.io.threads")).isEqualTo(6);
        assertThat(v.source("num.io.threads")).isEqualTo(SettingValues.Source.ENV);
        assertThat(v.get("log.segment.bytes")).isEqualTo(4096);
        assertThat(v.source("log.segment.bytes")).isEqualTo(SettingValues.Source.FILE);
        assertThat(v.get("socket.request.max.bytes")).isEqualTo(100 * 1024 * 1024);
        assertThat(v.source("socket.request.max.bytes")).isEqualTo(SettingValues.Source.DEFAULT);
        assertThat(SettingValues.defaults().brokerConfig()).isEqualTo(BrokerConfig.defaults());
    }

    @Test
    void aStrongerSourcesInterBrokerKeyHidesTheWeakerSourcesOther() {
        SettingValues v = SettingValues.resolve(
                Map.of("security.inter.broker.protocol", "SASL_SSL"),
                Map.of(),
                Map.of("inter.broker.listener.name", "INTERNAL"),
                "f");
        assertThat(v.securitySettings())
                .containsEntry("security.inter.broker.protocol", "SASL_SSL")
                .doesNotContainKey("inter.broker.listener.name");
        SettingValues both = SettingValues.resolve(
                Map.of(),
                Map.of(),
                Map.of("inter.broker.listener.name", "INTERNAL", "security.inter.broker.protocol", "SSL"),
                "f");
        assertThat(both.securitySettings())
                .as("both from one source: SecurityConfig's \"only one of\" rule reports it")
                .containsKeys("inter.broker.listener.name", "security.inter.broker.protocol");
    }
}
