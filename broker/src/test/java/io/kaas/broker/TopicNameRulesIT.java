package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.layout.OwnerLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One topic-name rule on every path that can create a topic (CreateTopics, auto-create from Produce and
 * from Metadata): each answers INVALID_TOPIC_EXCEPTION, as Apache does, for the names the engine refuses,
 * and nothing is created on disk. Among them names Apache itself accepts but the data-dir layout cannot
 * hold ({@code __cluster}, a leading dot), which once got a different answer on each path.
 */
class TopicNameRulesIT {
    @TempDir
    Path dir;

    static Stream<String> illegalNames() {
        // Kafka's internal topics too: kaas keeps that state in files, and a cluster's assignment names its
        // coordinator slots after them (TopicCatalog.validateNewName).
        return Stream.of(
                ".hidden", "__cluster", "a/b", "x".repeat(250), "..", "__consumer_offsets", "__transaction_state");
    }

    @ParameterizedTest
    @MethodSource("illegalNames")
    void createTopicsAnswersInvalidTopic(String name) throws Exception {
        try (TestBroker b = new TestBroker(dir);
                Admin admin = b.admin()) {
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(name, 1, (short) 1)))
                            .all()
                            .get())
                    .hasCauseInstanceOf(InvalidTopicException.class);
            assertThat(admin.listTopics().names().get()).isEmpty();
        }
        assertNothingCreated();
    }

    @ParameterizedTest
    @MethodSource("illegalNames")
    void produceWithAutoCreateAnswersInvalidTopic(String name) throws Exception {
        try (TestBroker b = new TestBroker(dir)) {
            try (KafkaProducer<byte[], byte[]> producer = b.producer(Map.of())) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(name, "v".getBytes(StandardCharsets.UTF_8)))
                                .get())
                        .hasCauseInstanceOf(InvalidTopicException.class);
            }
            // A client that skips Metadata and sends Produce straight away (v < 13 names the topic).
            try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
                ProduceRequestData produce =
                        new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000);
                produce.topicData()
                        .add(new ProduceRequestData.TopicProduceData()
                                .setName(name)
                                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                        .setIndex(0)
                                        .setRecords(MemoryRecords.withRecords(
                                                Compression.NONE,
                                                new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)))))));
                ProduceResponseData response = c.roundTrip(ApiKeys.PRODUCE, (short) 11, produce);
                assertThat(response.responses()
                                .iterator()
                                .next()
                                .partitionResponses()
                                .get(0)
                                .errorCode())
                        .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
            }
        }
        assertNothingCreated();
    }

    @ParameterizedTest
    @MethodSource("illegalNames")
    void metadataWithAutoCreateAnswersInvalidTopic(String name) throws Exception {
        try (TestBroker b = new TestBroker(dir);
                KafkaConsumer<byte[], byte[]> consumer = b.consumer(Map.of("allow.auto.create.topics", true))) {
            assertThatThrownBy(() -> consumer.partitionsFor(name)).isInstanceOf(InvalidTopicException.class);
        }
        assertNothingCreated();
    }

    /** Only what a broker always creates (the cluster dir, the data dir's lock): no topic directory, hidden or not. */
    private void assertNothingCreated() throws Exception {
        try (Stream<Path> entries = Files.list(dir)) {
            assertThat(entries.map(p -> p.getFileName().toString())).containsOnly("__cluster", OwnerLock.FILE_NAME);
        }
    }
}
