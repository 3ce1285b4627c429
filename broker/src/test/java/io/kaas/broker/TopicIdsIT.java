package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Topic ids through real clients: describe and delete by id, a re-created topic's new id, ids across a restart. */
class TopicIdsIT {
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
    void describeAndDeleteByIdAndAStaleIdAfterReCreate() throws Exception {
        try (Admin admin = b.admin()) {
            Uuid id = admin.createTopics(List.of(new NewTopic("by-id", 2, (short) 1)))
                    .topicId("by-id")
                    .get();
            assertThat(id).isNotEqualTo(Uuid.ZERO_UUID);
            TopicDescription d = admin.describeTopics(TopicCollection.ofTopicIds(List.of(id)))
                    .allTopicIds()
                    .get()
                    .get(id);
            assertThat(d.name()).isEqualTo("by-id");
            assertThat(d.topicId()).isEqualTo(id);
            assertThat(d.partitions()).hasSize(2);
            assertThat(admin.describeTopics(List.of("by-id"))
                            .allTopicNames()
                            .get()
                            .get("by-id")
                            .topicId())
                    .isEqualTo(id);

            admin.deleteTopics(TopicCollection.ofTopicIds(List.of(id))).all().get();
            assertThat(admin.listTopics().names().get()).doesNotContain("by-id");
            Uuid reCreated = admin.createTopics(List.of(new NewTopic("by-id", 1, (short) 1)))
                    .topicId("by-id")
                    .get();
            assertThat(reCreated).isNotEqualTo(id);
            assertThatThrownBy(() -> admin.describeTopics(TopicCollection.ofTopicIds(List.of(id)))
                            .allTopicIds()
                            .get())
                    .hasCauseInstanceOf(UnknownTopicIdException.class);
            assertThatThrownBy(() -> admin.deleteTopics(TopicCollection.ofTopicIds(List.of(id)))
                            .all()
                            .get())
                    .hasCauseInstanceOf(UnknownTopicIdException.class);
        }
        try (RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort())) {
            Uuid unknown = Uuid.randomUuid();
            MetadataResponseData r = raw.roundTrip(
                    ApiKeys.METADATA,
                    ApiKeys.METADATA.latestVersion(),
                    new MetadataRequestData()
                            .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic()
                                    .setTopicId(unknown)
                                    .setName(null))));
            assertThat(r.topics()).singleElement().satisfies(t -> {
                assertThat(t.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
                assertThat(t.topicId()).isEqualTo(unknown);
            });
        }
    }

    @Test
    void idsAreStableAcrossARestart() throws Exception {
        Uuid id;
        try (Admin admin = b.admin()) {
            id = admin.createTopics(List.of(new NewTopic("kept-id", 1, (short) 1)))
                    .topicId("kept-id")
                    .get();
        }
        b.restart();
        try (Admin admin = b.admin()) {
            assertThat(admin.describeTopics(List.of("kept-id"))
                            .allTopicNames()
                            .get()
                            .get("kept-id")
                            .topicId())
                    .isEqualTo(id);
            assertThat(admin.describeTopics(TopicCollection.ofTopicIds(List.of(id)))
                            .allTopicIds()
                            .get()
                            .get(id)
                            .name())
                    .isEqualTo("kept-id");
        }
    }
}
