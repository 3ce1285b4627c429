package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.etcd.EtcdServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two brokers over one directory: a topic config or client quota altered through one is in force on the
 * other (Apache brokers learn both from the metadata log; kaas brokers from the shared files).
 */
@ExtendWith(EtcdServer.Shared.class)
class SharedDirectoryStateIT {
    @TempDir
    Path dir;

    private final List<KaasBroker> brokers = new ArrayList<>();
    private final String clusterId = "shared-state-" + UUID.randomUUID();

    @AfterEach
    void stopAll() {
        brokers.forEach(KaasBroker::stop);
    }

    private KaasBroker start(EtcdServer etcd, int id) {
        BrokerConfig config = BrokerConfig.forTest(dir).withBrokerId(id).withClusterId(clusterId);
        ClusterConfig cluster = ClusterConfig.parse("etcd://" + etcd.endpoint())
                .withTimings(Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofMillis(500));
        KaasBroker b = KaasBroker.create(config, SecurityConfig.none(), cluster);
        brokers.add(b);
        return b.start();
    }

    private static String retentionMs(KaasBroker b) throws Exception {
        try (RawKafkaConnection raw = new RawKafkaConnection(b.boundPort())) {
            DescribeConfigsResponseData r = raw.roundTrip(
                    ApiKeys.DESCRIBE_CONFIGS,
                    (short) 4,
                    new DescribeConfigsRequestData()
                            .setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                                    .setResourceType(ConfigResource.Type.TOPIC.id())
                                    .setResourceName("t")
                                    .setConfigurationKeys(List.of("retention.ms")))));
            return r.results().get(0).configs().get(0).value();
        }
    }

    private static List<DescribeClientQuotasResponseData.EntryData> quotas(KaasBroker b) throws Exception {
        try (RawKafkaConnection raw = new RawKafkaConnection(b.boundPort())) {
            DescribeClientQuotasResponseData r = raw.roundTrip(
                    ApiKeys.DESCRIBE_CLIENT_QUOTAS,
                    (short) 1,
                    new DescribeClientQuotasRequestData()
                            .setComponents(List.of())
                            .setStrict(false));
            assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
            return r.entries();
        }
    }

    @Test
    void aTopicConfigOrClientQuotaAlteredThroughOneBrokerIsInForceOnTheOther(EtcdServer etcd) throws Exception {
        KaasBroker b0 = start(etcd, 0);
        KaasBroker b1 = start(etcd, 1);
        try (RawKafkaConnection raw = new RawKafkaConnection(b0.boundPort())) {
            CreateTopicsResponseData created = raw.roundTrip(
                    ApiKeys.CREATE_TOPICS,
                    (short) 7,
                    new CreateTopicsRequestData()
                            .setTimeoutMs(30_000)
                            .setTopics(new CreateTopicsRequestData.CreatableTopicCollection(
                                    List.of(new CreateTopicsRequestData.CreatableTopic()
                                                    .setName("t")
                                                    .setNumPartitions(2)
                                                    .setReplicationFactor((short) 1))
                                            .iterator())));
            assertThat(created.topics().find("t").errorCode()).isEqualTo(Errors.NONE.code());
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() -> b1.engine().topic("t").isPresent() || refreshed(b1));
        String before = retentionMs(b1);

        try (RawKafkaConnection raw = new RawKafkaConnection(b0.boundPort())) {
            IncrementalAlterConfigsResponseData r = raw.roundTrip(
                    ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                    (short) 1,
                    new IncrementalAlterConfigsRequestData()
                            .setResources(new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection(List.of(
                                            new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                                                    .setResourceType(ConfigResource.Type.TOPIC.id())
                                                    .setResourceName("t")
                                                    .setConfigs(
                                                            new IncrementalAlterConfigsRequestData
                                                                    .AlterableConfigCollection(List.of(
                                                                            new IncrementalAlterConfigsRequestData
                                                                                            .AlterableConfig()
                                                                                    .setName("retention.ms")
                                                                                    .setConfigOperation((byte) 0)
                                                                                    .setValue("123456"))
                                                                    .iterator())))
                                    .iterator())));
            assertThat(r.responses().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        }
        assertThat(before).isNotEqualTo("123456");
        await().atMost(Duration.ofSeconds(20)).until(() -> "123456".equals(retentionMs(b1)));

        try (RawKafkaConnection raw = new RawKafkaConnection(b1.boundPort())) {
            AlterClientQuotasResponseData r = raw.roundTrip(
                    ApiKeys.ALTER_CLIENT_QUOTAS,
                    (short) 1,
                    new AlterClientQuotasRequestData()
                            .setEntries(List.of(new AlterClientQuotasRequestData.EntryData()
                                    .setEntity(List.of(new AlterClientQuotasRequestData.EntityData()
                                            .setEntityType(ClientQuotaEntity.USER)
                                            .setEntityName("alice")))
                                    .setOps(List.of(new AlterClientQuotasRequestData.OpData()
                                            .setKey("producer_byte_rate")
                                            .setValue(1024))))));
            assertThat(r.entries().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        }
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(quotas(b0)).singleElement().satisfies(e -> {
                    assertThat(e.entity().get(0).entityName()).isEqualTo("alice");
                    assertThat(e.values().get(0).value()).isEqualTo(1024.0);
                }));
    }

    private static boolean refreshed(KaasBroker b) {
        b.engine().refreshTopics();
        return b.engine().topic("t").isPresent();
    }
}
