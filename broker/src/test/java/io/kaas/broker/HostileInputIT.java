package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddRaftVoterRequestData;
import org.apache.kafka.common.message.AddRaftVoterResponseData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile bytes over raw sockets. Each case checks what the offending connection gets (a typed error,
 * or a close) and that a second connection is then still served.
 */
class HostileInputIT {
    @TempDir
    Path dir;

    TestBroker b;

    @BeforeEach
    void start() {
        b = new TestBroker(dir);
    }

    @AfterEach
    void stop() {
        b.close();
    }

    private void assertStillServing() throws Exception {
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            MetadataResponseData m =
                    c.roundTrip(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
            assertThat(m.brokers()).hasSize(1);
        }
    }

    @Test
    void randomBytesCloseOnlyThatConnection() throws Exception {
        byte[] junk = new byte[4096];
        new Random(42).nextBytes(junk);
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            c.sendBytes(junk);
            assertThat(c.closedByBroker()).isTrue();
        }
        assertStillServing();
    }

    @Test
    void frameClaimingTwoGibibytesIsRefusedWithoutAllocating() throws Exception {
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            c.sendBytes(
                    ByteBuffer.allocate(8).putInt(Integer.MAX_VALUE).putInt(0).array());
            assertThat(c.closedByBroker()).isTrue();
        }
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            c.sendBytes(ByteBuffer.allocate(4).putInt(0x80000000).array());
            assertThat(c.closedByBroker()).isTrue();
        }
        assertStillServing();
    }

    @Test
    void unknownApiKeyClosesTheConnection() throws Exception {
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            c.sendBytes(ByteBuffer.allocate(14)
                    .putInt(10)
                    .putShort((short) 999)
                    .putShort((short) 0)
                    .putInt(7)
                    .putShort((short) -1)
                    .array());
            assertThat(c.closedByBroker()).isTrue();
        }
        assertStillServing();
    }

    @Test
    void apiVersionsAtAnUnknownVersionGetsV0UnsupportedVersionWithTheList() throws Exception {
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            // ApiVersions v99: header v2 (flexible), body unknown. Kafka answers v0 with UNSUPPORTED_VERSION.
            ByteBuffer req = ByteBuffer.allocate(4 + 2 + 2 + 4 + 2 + 1);
            req.putInt(req.capacity() - 4)
                    .putShort(ApiKeys.API_VERSIONS.id)
                    .putShort((short) 99)
                    .putInt(5)
                    .putShort((short) -1)
                    .put((byte) 0);
            c.sendBytes(req.array());
            ByteBuffer body = c.receive(ApiKeys.API_VERSIONS, (short) 0, 5);
            ApiVersionsResponseData r = new ApiVersionsResponseData(new ByteBufferAccessor(body), (short) 0);
            assertThat(r.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertThat(r.apiKeys().find(ApiKeys.PRODUCE.id)).isNotNull();
        }
        assertStillServing();
    }

    @Test
    void aVersionWeDoNotServeGetsUnsupportedVersionAndTheConnectionStaysUsable() throws Exception {
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            // A KRaft controller API: Apache's brokers do not serve it either, and kaas never will.
            AddRaftVoterResponseData r = c.roundTrip(
                    ApiKeys.ADD_RAFT_VOTER,
                    (short) 0,
                    new AddRaftVoterRequestData().setClusterId("c").setVoterId(1));
            assertThat(r.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            ApiVersionsResponseData v = c.roundTrip(
                    ApiKeys.API_VERSIONS,
                    (short) 3,
                    new ApiVersionsRequestData().setClientSoftwareName("raw").setClientSoftwareVersion("1"));
            assertThat(v.errorCode()).isZero();
            assertThat(v.apiKeys().find(ApiKeys.ADD_RAFT_VOTER.id)).isNull();
        }
    }

    @Test
    void truncatedRequestClosesTheConnection() throws Exception {
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            // A Metadata v12 header whose body stops in the middle of the topic array.
            ByteBuffer req = ByteBuffer.allocate(4 + 8 + 2 + 1 + 2);
            req.putInt(req.capacity() - 4)
                    .putShort(ApiKeys.METADATA.id)
                    .putShort((short) 12)
                    .putInt(3)
                    .putShort((short) -1)
                    .put((byte) 0)
                    .put((byte) 5)
                    .put((byte) 0);
            c.sendBytes(req.array());
            assertThat(c.closedByBroker()).isTrue();
        }
        assertStillServing();
    }

    @Test
    void produceWithACorruptBatchGetsCorruptMessageAndWritesNothing() throws Exception {
        MemoryRecords records =
                MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("k".getBytes(), "v".getBytes()));
        ByteBuffer bytes = records.buffer();
        byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        copy[copy.length - 1] ^= 0x5a; // flips a record byte: the CRC no longer matches
        try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            ProduceRequestData req =
                    new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000);
            req.topicData()
                    .add(new ProduceRequestData.TopicProduceData()
                            .setName("victim")
                            .setPartitionData(java.util.List.of(new ProduceRequestData.PartitionProduceData()
                                    .setIndex(0)
                                    .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(copy))))));
            ProduceResponseData r = c.roundTrip(ApiKeys.PRODUCE, (short) 11, req);
            ProduceResponseData.PartitionProduceResponse p =
                    r.responses().iterator().next().partitionResponses().get(0);
            assertThat(p.errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
            assertThat(b.broker()
                            .engine()
                            .partition(new io.kaas.storage.TopicPartition("victim", 0))
                            .state()
                            .highWatermark())
                    .isZero();
        }
        assertStillServing();
    }
}
