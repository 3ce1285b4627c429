package io.kaas.broker;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.cluster.Endpoint;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** A real broker on an ephemeral loopback port over a real data dir, plus real kafka-clients for it. */
public final class TestBroker implements AutoCloseable {
    private final Path dataDir;
    private final BrokerConfig config;
    private final io.kaas.broker.security.SecurityConfig security;
    private final io.kaas.broker.txn.TransactionConfig txnConfig;
    private KaasBroker broker;

    public TestBroker(Path dataDir) {
        this(BrokerConfig.forTest(dataDir).withRetentionCheckInterval(java.time.Duration.ZERO));
    }

    public TestBroker(BrokerConfig config) {
        this(config, io.kaas.broker.security.SecurityConfig.none(), io.kaas.broker.txn.TransactionConfig.DEFAULTS);
    }

    /** A broker with TLS/SASL listeners; clients pick one with {@link #bootstrap(String)}. */
    public TestBroker(BrokerConfig config, io.kaas.broker.security.SecurityConfig security) {
        this(config, security, io.kaas.broker.txn.TransactionConfig.DEFAULTS);
    }

    public TestBroker(BrokerConfig config, io.kaas.broker.txn.TransactionConfig txnConfig) {
        this(config, io.kaas.broker.security.SecurityConfig.none(), txnConfig);
    }

    public TestBroker(
            BrokerConfig config,
            io.kaas.broker.security.SecurityConfig security,
            io.kaas.broker.txn.TransactionConfig txnConfig) {
        this.dataDir = config.dataDir();
        this.config = config;
        this.security = security;
        this.txnConfig = txnConfig;
        this.broker = KaasBroker.create(config, security)
                .withTransactionConfig(txnConfig)
                .start();
    }

    /** A broker on {@code listeners} (e.g. {@code "SSL://127.0.0.1:0"}) with the given security keys (server.properties spelling). */
    public static TestBroker secured(Path dataDir, Map<String, String> securityKeys, String... listeners) {
        BrokerConfig config = BrokerConfig.forTest(dataDir)
                .withRetentionCheckInterval(java.time.Duration.ZERO)
                .withListeners(
                        java.util.Arrays.stream(listeners).map(Endpoint::parse).toList());
        return new TestBroker(config, new io.kaas.broker.security.SecurityConfig(securityKeys));
    }

    /** Stops (cleanly) and starts again on the same data dir and a new ephemeral port. */
    public void restart() {
        broker.stop();
        broker = KaasBroker.create(config, security)
                .withTransactionConfig(txnConfig)
                .start();
    }

    public KaasBroker broker() {
        return broker;
    }

    public Path dataDir() {
        return dataDir;
    }

    public String bootstrap() {
        return "127.0.0.1:" + broker.boundPort();
    }

    /** {@code 127.0.0.1:port} of the listener named {@code listenerName}. */
    public String bootstrap(String listenerName) {
        return "127.0.0.1:" + broker.boundPort(listenerName);
    }

    public KafkaProducer<byte[], byte[]> producer(Map<String, Object> overrides) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.putAll(overrides);
        return new KafkaProducer<>(p);
    }

    public KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> overrides) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.putAll(overrides);
        return new KafkaConsumer<>(p);
    }

    public Admin admin() {
        return admin(Map.of());
    }

    public Admin admin(Map<String, Object> overrides) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        p.putAll(overrides);
        return Admin.create(p);
    }

    @Override
    public void close() {
        broker.stop();
    }
}
