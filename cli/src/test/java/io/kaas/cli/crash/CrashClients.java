package io.kaas.cli.crash;

import java.util.Properties;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Client settings the crash harnesses share: short timeouts and backoffs, as a client may outlive the broker it talks to. */
final class CrashClients {
    private CrashClients() {}

    /** A consumer reading from the earliest offset, committing only explicitly; {@code group} may be null. */
    static Properties consumer(BrokerProcess broker, String group, String isolationLevel) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        if (group != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        return p;
    }

    static Properties admin(BrokerProcess broker) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 500);
        return p;
    }
}
