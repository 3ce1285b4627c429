package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What 4.x clients and tools ask a broker besides data: telemetry subscriptions (KIP-714) and feature levels (KIP-584). */
class ClientProbesIT {
    @TempDir
    static Path dir;

    static TestBroker b;

    @BeforeAll
    static void start() {
        b = new TestBroker(dir);
    }

    @AfterAll
    static void stop() {
        b.close();
    }

    @Test
    void aClientGetsAnInstanceIdAndNoTelemetrySubscription() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
            // clientInstanceId() is answered from GetTelemetrySubscriptions; it throws when the broker lacks the API.
            Uuid id = p.clientInstanceId(Duration.ofSeconds(20));
            assertThat(id).isNotNull().isNotEqualTo(Uuid.ZERO_UUID);
        }
        // Admin pushes no metrics unless asked (its enable.metrics.push defaults to false).
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", b.bootstrap(), "enable.metrics.push", true))) {
            assertThat(admin.clientInstanceId(Duration.ofSeconds(20))).isNotEqualTo(Uuid.ZERO_UUID);
        }
    }

    @Test
    void featuresAreThoseOfASingleApacheNode() throws Exception {
        try (Admin admin = b.admin()) {
            FeatureMetadata f = admin.describeFeatures().featureMetadata().get();
            short latest = MetadataVersion.LATEST_PRODUCTION.featureLevel();
            assertThat(f.finalizedFeatures().get(MetadataVersion.FEATURE_NAME).maxVersionLevel())
                    .isEqualTo(latest);
            assertThat(f.supportedFeatures().get(MetadataVersion.FEATURE_NAME).maxVersion())
                    .isEqualTo(latest);
            // KIP-890 part 2's transaction protocol, Apache 4.x's default (kaas serve --transaction-version).
            assertThat(f.finalizedFeatures().get("transaction.version").maxVersionLevel())
                    .isEqualTo((short) 2);
            assertThat(f.supportedFeatures().get("transaction.version").maxVersion())
                    .isEqualTo((short) 2);
            // KIP-848's consumer protocol is served: group.version 1, as Apache 4.x finalizes it.
            assertThat(f.finalizedFeatures().get("group.version").maxVersionLevel())
                    .isEqualTo((short) 1);
            assertThat(f.finalizedFeaturesEpoch()).isPresent();
        }
    }
}
