package io.kaas.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.TestBroker;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.Endpoint;
import java.nio.channels.SelectionKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.memory.MemoryPool;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ChannelBuilders;
import org.apache.kafka.common.network.ChannelMetadataRegistry;
import org.apache.kafka.common.network.KafkaChannel;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link InterBrokerClient#renewConnections} against a real broker over real sockets: a request in flight is not failed
 * by it, the next request goes over a connection made by a new channel builder, and the old connection is closed
 * once its request is answered.
 */
class InterBrokerClientIT {
    @TempDir
    Path dir;

    @Test
    void aRequestInFlightFinishesOnItsConnectionWhileTheNextGoesOverANewOne() throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        List<WatchedChannels> builders = new CopyOnWriteArrayList<>();
        try (TestBroker b = new TestBroker(dir.resolve("data"));
                InterBrokerClient client = new InterBrokerClient(
                        1,
                        Duration.ofSeconds(30),
                        () -> {
                            WatchedChannels w = new WatchedChannels();
                            builders.add(w);
                            return w;
                        },
                        to -> new Endpoint("PLAINTEXT", to.host(), to.port()))) {
            Uuid topicId;
            try (Admin admin = b.admin()) {
                admin.createTopics(List.of(new NewTopic("t", 1, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                topicId = admin.describeTopics(List.of("t"))
                        .allTopicNames()
                        .get(30, TimeUnit.SECONDS)
                        .get("t")
                        .topicId();
            }
            BrokerNode broker = new BrokerNode(0, "127.0.0.1", b.broker().boundPort(), "test");
            // A long poll on an empty partition: answered when a record arrives.
            Future<ApiMessage> fetch = caller.submit(() -> client.send(broker, ApiKeys.FETCH, longPoll(topicId)));
            // The connection is made under the peer's lock, which the Fetch holds until answered.
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            builders.size() == 1 && builders.get(0).channels.get() == 1);

            client.renewConnections();
            assertThat(metadata(client, broker).brokers()).hasSize(1);
            assertThat(builders)
                    .as("the request after the renewal has a new channel builder")
                    .hasSize(2);
            assertThat(fetch)
                    .as("the Fetch in flight is not failed by the renewal")
                    .isNotDone();

            try (KafkaProducer<byte[], byte[]> producer = b.producer(Map.of())) {
                producer.send(new ProducerRecord<>("t", 0, null, "v".getBytes()))
                        .get(30, TimeUnit.SECONDS);
            }
            FetchResponseData answer = (FetchResponseData) fetch.get(30, TimeUnit.SECONDS);
            assertThat(answer.errorCode()).isZero();
            FetchResponseData.PartitionData partition =
                    answer.responses().get(0).partitions().get(0);
            assertThat(partition.errorCode()).isZero();
            assertThat(partition.records().sizeInBytes()).isPositive();
            await("the old connection closed once its request was answered")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> builders.get(0).closed.get());

            assertThat(metadata(client, broker).brokers()).hasSize(1);
            assertThat(builders)
                    .as("without a renewal the connection is reused")
                    .hasSize(2);
            assertThat(builders.get(1).closed).isFalse();
        } finally {
            caller.shutdownNow();
        }
        assertThat(builders).allMatch(w -> w.closed.get());
    }

    private static MetadataResponseData metadata(InterBrokerClient client, BrokerNode to) throws Exception {
        return (MetadataResponseData) client.send(to, ApiKeys.METADATA, new MetadataRequestData().setTopics(List.of()));
    }

    private static FetchRequestData longPoll(Uuid topicId) {
        return new FetchRequestData()
                .setMaxWaitMs(20_000)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setSessionId(0)
                .setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic()
                        .setTopic("t")
                        .setTopicId(topicId)
                        .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                .setPartition(0)
                                .setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20)))));
    }

    /** kafka-clients' PLAINTEXT channel builder, counting the connections it makes and whether it was closed. */
    private static final class WatchedChannels implements ChannelBuilder {
        private final ChannelBuilder plaintext = ChannelBuilders.clientChannelBuilder(
                SecurityProtocol.PLAINTEXT,
                null,
                new AbstractConfig(new ConfigDef(), Map.of(), false),
                null,
                null,
                Time.SYSTEM,
                new LogContext());
        final AtomicInteger channels = new AtomicInteger();
        final AtomicBoolean closed = new AtomicBoolean();

        @Override
        public KafkaChannel buildChannel(
                String id,
                SelectionKey key,
                int maxReceiveSize,
                MemoryPool memoryPool,
                ChannelMetadataRegistry metadataRegistry) {
            channels.incrementAndGet();
            return plaintext.buildChannel(id, key, maxReceiveSize, memoryPool, metadataRegistry);
        }

        @Override
        public void configure(Map<String, ?> configs) {
            plaintext.configure(configs);
        }

        @Override
        public void close() {
            closed.set(true);
            plaintext.close();
        }
    }
}
