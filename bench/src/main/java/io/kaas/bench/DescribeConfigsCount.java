package io.kaas.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Admin {@code describeConfigs} with default options for a topic and a broker: prints how many
 * entries each answer holds and writes their names, sorted, one per line, so the script can show
 * the names one broker reports and the other does not.
 *
 * <p>Usage: {@code DescribeConfigsCount <bootstrap> <topic> <brokerId> <outPrefix>}: writes
 * {@code <outPrefix>.topic.names} and {@code <outPrefix>.broker.names}; prints
 * {@code topic <n>} and {@code broker <n>}.
 */
public final class DescribeConfigsCount {

    private DescribeConfigsCount() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: DescribeConfigsCount <bootstrap> <topic> <brokerId> <outPrefix>");
            System.exit(2);
        }
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, args[1]);
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, args[2]);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]))) {
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(topic, broker)).all().get(30, TimeUnit.SECONDS);
            write(args[3] + ".topic.names", configs.get(topic));
            write(args[3] + ".broker.names", configs.get(broker));
            System.out.println("topic " + configs.get(topic).entries().size());
            System.out.println("broker " + configs.get(broker).entries().size());
        }
    }

    private static void write(String file, Config config) throws java.io.IOException {
        Files.write(Path.of(file), config.entries().stream().map(ConfigEntry::name).sorted().toList());
    }
}
