package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.Partition;
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
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One producer connection with several acks=all requests in flight: the broker appends request N+1
 * while N's fsync is still running, so they share fsyncs, and still answers strictly in order.
 */
class PipelinedProduceIT {
    static final short PRODUCE_V9 = 9;
    FaultyDisk disk;
    DiskStorageEngine engine;
    KaasBroker broker;
    FsyncGate gate;

    @BeforeEach
    void start() throws Exception {
        disk = FaultyDisk.create();
        // The broker owns the engine (stop closes it), so it is built from the disk's config, not opened by it.
        engine = new DiskStorageEngine(disk.config());
        engine.createTopic("p", 1, TopicConfig.EMPTY);
        broker = new KaasBroker(BrokerConfig.forTest(disk.dataDir()).withRetentionCheckInterval(Duration.ZERO), engine)
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        if (gate != null) {
            gate.release();
        }
        broker.stop();
        disk.close();
    }

    static ProduceRequestData produce(int sequence) {
        ByteBuffer batch = TestBatches.idempotent(77L, (short) 0, sequence, 1);
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setName("p")
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(0)
                        .setRecords(MemoryRecords.readableRecords(batch)))));
        return new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(topics);
    }

    @Test
    void requestsBehindAnFsyncAreAppendedAndShareTheNextOne() throws Exception {
        Partition partition = engine.openPartition(new TopicPartition("p", 0));
        gate = disk.fs().faults().hangFsync(Scope.fileNameEndsWith(".log"));
        long fsyncsBefore = partition.fsyncCount();
        try (RawKafkaConnection c = new RawKafkaConnection(broker.boundPort())) {
            List<Integer> ids = new ArrayList<>();
            ids.add(c.send(ApiKeys.PRODUCE, PRODUCE_V9, produce(0)));
            // The first fsync (covering request 0 only) is held before the others are sent: on a busy
            // machine the broker could otherwise append all five before the committer captures its target.
            gate.awaitBlocked(1, Duration.ofSeconds(10));
            for (int seq = 1; seq < 5; seq++) {
                ids.add(c.send(ApiKeys.PRODUCE, PRODUCE_V9, produce(seq)));
            }
            // All five are written while the first fsync is still held: they were not kept waiting.
            await().atMost(Duration.ofSeconds(10)).until(() -> partition.state().highWatermark() == 5);
            // A non-produce request queues behind them and is answered after them.
            int metadataId = c.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
            gate.release();
            gate = null;
            for (int i = 0; i < 5; i++) {
                ByteBuffer body = c.receive(ApiKeys.PRODUCE, PRODUCE_V9, ids.get(i));
                ProduceResponseData r = new ProduceResponseData(new ByteBufferAccessor(body), PRODUCE_V9);
                ProduceResponseData.PartitionProduceResponse p =
                        r.responses().iterator().next().partitionResponses().get(0);
                assertThat(Errors.forCode(p.errorCode())).isEqualTo(Errors.NONE);
                assertThat(p.baseOffset()).isEqualTo(i);
            }
            c.receive(ApiKeys.METADATA, (short) 12, metadataId);
        }
        assertThat(partition.fsyncCount() - fsyncsBefore)
                .as("5 acks=all requests, 2 fsyncs")
                .isEqualTo(2);
    }
}
