package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thousand client connections on one broker (the CI size of bench/connections.sh, which holds ten thousand):
 * all of them held and answering, a tenth producing acks=all with no error, and Apache's
 * {@code max.connections.per.ip} closing the one over the limit at once, counted in
 * {@code kaas_connections_rejected_total}. Bare sockets from one thread: the requests of all connections are
 * written first and their responses read after, so the broker sees them at the same time.
 */
class ManyConnectionsIT {
    private static final int CONNECTIONS = 1000;
    private static final int PRODUCERS = 100;
    private static final short API_VERSIONS_VERSION = 3;
    private static final short METADATA_VERSION = 12;
    private static final short PRODUCE_VERSION = 9;
    private static final String TOPIC = "many-connections";

    @TempDir
    Path dir;

    @Test
    void aThousandConnectionsAreHeldAndTheOneOverThePerIpLimitIsClosed() throws Exception {
        InetAddress client = InetAddress.getByName("127.0.0.3");
        try (TestBroker b = TestBroker.secured(
                dir.resolve("data"),
                Map.of("max.connections.per.ip.overrides", "127.0.0.3:" + CONNECTIONS),
                "PLAINTEXT://127.0.0.1:0")) {
            int port = b.broker().boundPort("PLAINTEXT");
            List<RawKafkaConnection> open = new ArrayList<>();
            try {
                for (int i = 0; i < CONNECTIONS; i++) {
                    open.add(new RawKafkaConnection(port, client));
                }
                assertThat(apiVersionsOnEvery(open)).isEqualTo(CONNECTIONS);

                try (RawKafkaConnection over = new RawKafkaConnection(port, client)) {
                    assertThat(over.closedByBroker()).isTrue();
                }
                assertThat(rejected(b, "max.connections.per.ip")).isEqualTo(1.0);
                assertThat(rejected(b, "max.connections")).isZero();

                MetadataResponseData metadata = open.get(0)
                        .roundTrip(
                                ApiKeys.METADATA,
                                METADATA_VERSION,
                                new MetadataRequestData()
                                        .setAllowAutoTopicCreation(true)
                                        .setTopics(List.of(
                                                new MetadataRequestData.MetadataRequestTopic().setName(TOPIC))));
                assertThat(metadata.topics().iterator().next().errorCode()).isZero();
                List<Integer> sent = new ArrayList<>();
                for (int i = 0; i < PRODUCERS; i++) {
                    sent.add(open.get(i * (CONNECTIONS / PRODUCERS)).send(ApiKeys.PRODUCE, PRODUCE_VERSION, produce()));
                }
                for (int i = 0; i < PRODUCERS; i++) {
                    ProduceResponseData r = new ProduceResponseData(
                            new org.apache.kafka.common.protocol.ByteBufferAccessor(
                                    open.get(i * (CONNECTIONS / PRODUCERS))
                                            .receive(ApiKeys.PRODUCE, PRODUCE_VERSION, sent.get(i))),
                            PRODUCE_VERSION);
                    r.responses()
                            .forEach(t -> t.partitionResponses()
                                    .forEach(p -> assertThat(Errors.forCode(p.errorCode()))
                                            .isEqualTo(Errors.NONE)));
                }
                // Still every one of them open and answering after the produce round.
                assertThat(apiVersionsOnEvery(open)).isEqualTo(CONNECTIONS);
            } finally {
                for (RawKafkaConnection c : open) {
                    c.close();
                }
            }
            // Once the broker has seen the closes, the address may connect again.
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                try (RawKafkaConnection again = new RawKafkaConnection(port, client)) {
                    ApiVersionsResponseData r = again.roundTrip(ApiKeys.API_VERSIONS, API_VERSIONS_VERSION, hello());
                    return r.errorCode() == 0;
                } catch (java.io.IOException refused) {
                    return false;
                }
            });
        }
    }

    /** ApiVersions written on every connection, then every answer read: how many answered without error. */
    private static int apiVersionsOnEvery(List<RawKafkaConnection> open) throws Exception {
        int[] ids = new int[open.size()];
        for (int i = 0; i < open.size(); i++) {
            ids[i] = open.get(i).send(ApiKeys.API_VERSIONS, API_VERSIONS_VERSION, hello());
        }
        int answered = 0;
        for (int i = 0; i < open.size(); i++) {
            ApiVersionsResponseData r = new ApiVersionsResponseData(
                    new org.apache.kafka.common.protocol.ByteBufferAccessor(
                            open.get(i).receive(ApiKeys.API_VERSIONS, API_VERSIONS_VERSION, ids[i])),
                    API_VERSIONS_VERSION);
            answered += r.errorCode() == 0 ? 1 : 0;
        }
        return answered;
    }

    private static ApiVersionsRequestData hello() {
        return new ApiVersionsRequestData().setClientSoftwareName("raw").setClientSoftwareVersion("1");
    }

    private static ProduceRequestData produce() {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setName(TOPIC)
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(0)
                        .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()))))));
        return new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(topics);
    }

    private static double rejected(TestBroker b, String reason) {
        for (MetricSnapshot s : b.broker().metrics().registry().scrape()) {
            if (s instanceof CounterSnapshot c && s.getMetadata().getName().equals("kaas_connections_rejected")) {
                for (CounterSnapshot.CounterDataPointSnapshot p : c.getDataPoints()) {
                    if (reason.equals(p.getLabels().get("reason"))) {
                        return p.getValue();
                    }
                }
            }
        }
        throw new AssertionError("no kaas_connections_rejected{reason=" + reason + "}");
    }
}
