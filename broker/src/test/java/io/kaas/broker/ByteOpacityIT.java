package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Byte opacity: the batch bytes a client produces are the bytes in the segment file, and the bytes a
 * Fetch returns, for every codec. Only the two broker-owned header fields (baseOffset @0 and
 * partitionLeaderEpoch @12, outside the CRC) may differ from what the client sent.
 */
class ByteOpacityIT {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void producedEqualsStoredEqualsFetched(CompressionType codec) throws Exception {
        String topic = "opaque-" + codec.name;
        List<SimpleRecord> records = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            records.add(new SimpleRecord(
                    1_700_000_000_000L + i, ("key-" + i).getBytes(), ("value-" + i + "-".repeat(i % 17)).getBytes()));
        }
        byte[] produced =
                bytes(MemoryRecords.withRecords(Compression.of(codec).build(), records.toArray(SimpleRecord[]::new))
                        .buffer());

        try (TestBroker b = new TestBroker(dir);
                RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            ProduceRequestData produce =
                    new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000);
            produce.topicData()
                    .add(new ProduceRequestData.TopicProduceData()
                            .setName(topic)
                            .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                    .setIndex(0)
                                    .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(produced.clone()))))));
            ProduceResponseData pr = c.roundTrip(ApiKeys.PRODUCE, (short) 11, produce);
            assertThat(pr.responses()
                            .iterator()
                            .next()
                            .partitionResponses()
                            .get(0)
                            .errorCode())
                    .isZero();

            b.broker()
                    .engine()
                    .partition(new io.kaas.storage.TopicPartition(topic, 0))
                    .flush();
            byte[] stored = segmentBytes(dir.resolve(topic).resolve("0"));
            byte[] expected = produced.clone();
            // The broker owns baseOffset (0 here, as sent) and partitionLeaderEpoch (the partition's epoch).
            System.arraycopy(stored, 12, expected, 12, 4);
            assertThat(stored).isEqualTo(expected);
            assertThat(Arrays.copyOfRange(stored, 16, stored.length))
                    .isEqualTo(Arrays.copyOfRange(produced, 16, produced.length));

            FetchRequestData fetch = new FetchRequestData()
                    .setMaxWaitMs(0)
                    .setMinBytes(1)
                    .setMaxBytes(1 << 20)
                    .setSessionEpoch(-1)
                    .setReplicaId(-1);
            fetch.topics()
                    .add(new FetchRequestData.FetchTopic()
                            .setTopic(topic)
                            .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                    .setPartition(0)
                                    .setFetchOffset(0)
                                    .setPartitionMaxBytes(1 << 20))));
            FetchResponseData fr = c.roundTrip(ApiKeys.FETCH, (short) 12, fetch);
            FetchResponseData.PartitionData p =
                    fr.responses().get(0).partitions().get(0);
            assertThat(p.errorCode()).isZero();
            assertThat(fr.sessionId()).isZero();
            assertThat(bytes(((MemoryRecords) p.records()).buffer())).isEqualTo(stored);
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] segmentBytes(Path partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            List<Path> logs = files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList();
            assertThat(logs).hasSize(1);
            return Files.readAllBytes(logs.get(0));
        }
    }
}
