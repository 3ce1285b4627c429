package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.metrics.AdminHttp;
import io.kaas.broker.metrics.BrokerMetrics;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.layout.LogDir;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.testfs.FaultyFileSystem;
import io.kaas.storage.testfs.Repeat;
import io.kaas.storage.testfs.Scope;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A broker over three log dirs on the fault-injecting file system, one of which fails while clients produce to
 * all three (KIP-112): its partition answers KAFKA_STORAGE_ERROR, Metadata names it offline, DescribeLogDirs
 * answers the dir KAFKA_STORAGE_ERROR, readiness and metrics name the dir, and the other dirs serve on.
 */
class LogDirFailureIT {
    private static final InetSocketAddress ANY_LOOPBACK_PORT = InetSocketAddress.createUnresolved("127.0.0.1", 0);

    private FaultyFileSystem fs;
    private final List<Path> dirs = new ArrayList<>();
    private KaasBroker broker;

    @BeforeEach
    void start() throws Exception {
        fs = FaultyFileSystem.onJimfs();
        List<LogDir> pool = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path d = Files.createDirectory(fs.root().resolve("d" + i));
            dirs.add(d);
            pool.add(new LogDir("d" + i, d, true, false, Map.of()));
        }
        AtomicFile.fsyncDirectory(fs.root());
        BrokerMetrics metrics = new BrokerMetrics(false);
        DiskStorageEngine engine = new DiskStorageEngine(
                EngineConfig.defaults(dirs.get(0)).withLogDirs(new LogDirs(pool)), metrics.engine());
        broker = new KaasBroker(
                        BrokerConfig.forTest(dirs.get(0))
                                .withRetentionCheckInterval(Duration.ZERO)
                                .withAdminListener(ANY_LOOPBACK_PORT),
                        engine,
                        metrics)
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        if (broker != null) {
            broker.stop();
        }
        fs.close();
    }

    @Test
    void aDirFailingMidProduceTakesOnlyItsPartitionOffline() throws Exception {
        broker.engine().createTopic("t", 3, TopicConfig.EMPTY); // t-0 in d0, t-1 in d1, t-2 in d2
        try (RawKafkaConnection c = new RawKafkaConnection(broker.boundPort());
                KafkaProducer<byte[], byte[]> producer = producer();
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            for (int p = 0; p < 3; p++) {
                send(producer, p, "before");
            }

            fs.faults().failFsync(Scope.under(dirs.get(1)), Repeat.ALWAYS);
            ProduceResponseData.PartitionProduceResponse failed = produceRaw(c, 1);
            assertThat(failed.errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
            ProduceResponseData.PartitionProduceResponse refused = produceRaw(c, 1);
            assertThat(refused.errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
            assertThat(refused.errorMessage()).contains("log dir d1 is offline");
            assertThat(fetchRaw(c, 1).errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());

            // The other dirs serve on, through the same producer.
            for (int i = 0; i < 5; i++) {
                send(producer, 0, "after-" + i);
                send(producer, 2, "after-" + i);
            }
            assertThat(fetchRaw(c, 2).errorCode()).isZero();

            MetadataResponseData md = c.roundTrip(
                    ApiKeys.METADATA,
                    (short) 12,
                    new MetadataRequestData()
                            .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("t"))));
            int self = md.brokers().iterator().next().nodeId();
            for (MetadataResponseData.MetadataResponsePartition p :
                    md.topics().iterator().next().partitions()) {
                if (p.partitionIndex() == 1) {
                    assertThat(p.errorCode()).isEqualTo(Errors.LEADER_NOT_AVAILABLE.code());
                    assertThat(p.leaderId()).isEqualTo(-1);
                    assertThat(p.offlineReplicas()).containsExactly(self);
                } else {
                    assertThat(p.errorCode()).isZero();
                    assertThat(p.leaderId()).isEqualTo(self);
                    assertThat(p.offlineReplicas()).isEmpty();
                }
            }

            Map<String, LogDirDescription> described =
                    admin.describeLogDirs(List.of(self)).allDescriptions().get().get(self);
            assertThat(described.get(dirs.get(1).toAbsolutePath().toString()).error())
                    .isInstanceOf(KafkaStorageException.class);
            assertThat(described.get(dirs.get(2).toAbsolutePath().toString()).error())
                    .isNull();
            assertThat(described.get(dirs.get(2).toAbsolutePath().toString()).replicaInfos())
                    .containsKey(new org.apache.kafka.common.TopicPartition("t", 2));
        }

        AdminHttp http = new AdminHttp(broker.adminAddress());
        AdminHttp.Response ready = http.get("/readyz");
        assertThat(ready.status()).as("it serves its other dirs: still ready").isEqualTo(200);
        assertThat(ready.body()).contains("offline_log_dirs").contains("d1 (" + dirs.get(1) + ")");
        String metrics = http.get("/metrics").body();
        assertThat(metrics)
                .contains("kaas_log_dir_offline{dir=\"d1\"} 1")
                .contains("kaas_log_dir_offline{dir=\"d0\"} 0");
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, int partition, String value) throws Exception {
        producer.send(new ProducerRecord<>("t", partition, null, value.getBytes()))
                .get(30, TimeUnit.SECONDS);
    }

    private static ProduceResponseData.PartitionProduceResponse produceRaw(RawKafkaConnection c, int partition)
            throws Exception {
        ProduceRequestData req = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        req.topicData()
                .add(new ProduceRequestData.TopicProduceData()
                        .setName("t")
                        .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                .setIndex(partition)
                                .setRecords(MemoryRecords.withRecords(
                                        Compression.NONE, new SimpleRecord("raw".getBytes()))))));
        ProduceResponseData r = c.roundTrip(ApiKeys.PRODUCE, (short) 11, req);
        return r.responses().iterator().next().partitionResponses().get(0);
    }

    private static FetchResponseData.PartitionData fetchRaw(RawKafkaConnection c, int partition) throws Exception {
        FetchRequestData req = new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(1 << 20);
        req.topics()
                .add(new FetchRequestData.FetchTopic()
                        .setTopic("t")
                        .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                .setPartition(partition)
                                .setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20))));
        FetchResponseData r = c.roundTrip(ApiKeys.FETCH, (short) 12, req);
        return r.responses().iterator().next().partitions().get(0);
    }
}
