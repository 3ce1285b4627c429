package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.durability.FaultyDisk;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testfs.FsyncGate;
import io.kaas.storage.testfs.Scope;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * acks=0/1 Produce is appended on the network event loop (no hand-off to a handler thread and back), and
 * the fsyncs those appends ask for (flush interval 1, kaas's default) run on committers: with every fsync
 * of the data hung, acks=1 requests to more partitions than there are handler threads are all answered,
 * and the broker still answers other requests. (Appended on handler threads, each appending handler
 * would run its partition's hung fsync itself and the pool would be gone after eight partitions.)
 */
class ProduceOnEventLoopIT {
    static final short PRODUCE_V9 = 9;
    static final int PARTITIONS = 12;
    FaultyDisk disk;
    DiskStorageEngine engine;
    KaasBroker broker;
    FsyncGate gate;

    @BeforeEach
    void start() throws Exception {
        disk = FaultyDisk.create(c -> c.withFsyncTimeout(Duration.ofMinutes(5)));
        engine = new DiskStorageEngine(disk.config());
        engine.createTopic("p", PARTITIONS, TopicConfig.EMPTY);
        broker = new KaasBroker(BrokerConfig.forTest(disk.dataDir()).withRetentionCheckInterval(Duration.ZERO), engine)
                .start();
        // One acknowledged record each first: a fresh segment's file is opened on a handler thread.
        for (int p = 0; p < PARTITIONS; p++) {
            engine.partition(new TopicPartition("p", p))
                    .append(TestBatches.batch(1, 1_000L), Acks.ALL, -1)
                    .get();
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (gate != null) {
            gate.release();
        }
        broker.stop();
        disk.close();
    }

    static ProduceRequestData produce(short acks, int partition) {
        ByteBuffer batch = TestBatches.batch(1, 1_000L);
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setName("p")
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(partition)
                        .setRecords(MemoryRecords.readableRecords(batch)))));
        return new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000).setTopicData(topics);
    }

    @Test
    @Timeout(60)
    void acksOneIsAnsweredWhileEveryFsyncHangsAndTheBrokerStaysResponsive() throws Exception {
        gate = disk.fs().faults().hangFsync(Scope.fileNameEndsWith(".log"));
        try (RawKafkaConnection c = new RawKafkaConnection(broker.boundPort())) {
            List<Integer> ids = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                ids.add(c.send(ApiKeys.PRODUCE, PRODUCE_V9, produce((short) 1, p)));
            }
            for (int p = 0; p < PARTITIONS; p++) {
                ByteBuffer body = c.receive(ApiKeys.PRODUCE, PRODUCE_V9, ids.get(p));
                ProduceResponseData.PartitionProduceResponse r = new ProduceResponseData(
                                new ByteBufferAccessor(body), PRODUCE_V9)
                        .responses()
                        .iterator()
                        .next()
                        .partitionResponses()
                        .get(0);
                assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
                assertThat(r.baseOffset()).isEqualTo(1);
            }
            // Every partition's fsync is hung on a committer thread, none on a handler or the event loop.
            gate.awaitBlocked(PARTITIONS, Duration.ofSeconds(20));
            // acks=0 on the same connection, then a request for the handler pool, answered in order.
            c.send(ApiKeys.PRODUCE, PRODUCE_V9, produce((short) 0, 0));
            int metadata = c.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
            MetadataResponseData m = new MetadataResponseData(
                    new ByteBufferAccessor(c.receive(ApiKeys.METADATA, (short) 12, metadata)), (short) 12);
            assertThat(m.topics().find("p").partitions()).hasSize(PARTITIONS);
        }
        assertThat(engine.partition(new TopicPartition("p", 0)).state().highWatermark())
                .isEqualTo(3);
    }
}
