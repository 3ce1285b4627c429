package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.TopicConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition count is a 4-byte field: one flipped bit asks for millions of partitions, each of
 * them directories, files and open descriptors. Like Apache's controller (at most 10,000 partitions
 * per request), the broker refuses with POLICY_VIOLATION at once and creates nothing. Before the
 * limit, the first test's request made the broker create a million partition directories without
 * answering (found while choosing the fuzzer's valid frames: a byte flip in a count does this).
 */
class HostilePartitionCountsIT {
    @TempDir
    Path dir;

    @Test
    void createTopicsAskingForAMillionPartitionsIsRefusedAndCreatesNothing() throws Exception {
        try (TestBroker b = new TestBroker(dir);
                RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            CreateTopicsRequestData req = new CreateTopicsRequestData().setTimeoutMs(5_000);
            req.topics()
                    .add(new CreateTopicsRequestData.CreatableTopic()
                            .setName("huge")
                            .setNumPartitions(1_000_000)
                            .setReplicationFactor((short) 1));
            CreateTopicsResponseData r = c.roundTrip(ApiKeys.CREATE_TOPICS, (short) 7, req);
            CreateTopicsResponseData.CreatableTopicResult t = r.topics().find("huge");
            assertThat(t.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
            assertThat(t.errorMessage()).contains("1000000").contains("10000");
            assertThat(b.broker().engine().topic("huge")).isEmpty();
            assertThat(Files.exists(dir.resolve("huge"))).isFalse();
        }
    }

    @Test
    void createPartitionsGrowingByAMillionIsRefusedAndTheTopicKeepsItsPartitions() throws Exception {
        try (TestBroker b = new TestBroker(dir);
                RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            b.broker().engine().createTopic("grow", 1, TopicConfig.EMPTY);
            CreatePartitionsRequestData req = new CreatePartitionsRequestData()
                    .setTimeoutMs(5_000)
                    .setTopics(new CreatePartitionsRequestData.CreatePartitionsTopicCollection(
                            List.of(new CreatePartitionsRequestData.CreatePartitionsTopic()
                                            .setName("grow")
                                            .setCount(1_000_001))
                                    .iterator()));
            CreatePartitionsResponseData r = c.roundTrip(ApiKeys.CREATE_PARTITIONS, (short) 3, req);
            assertThat(r.results().get(0).errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
            assertThat(b.broker().engine().topic("grow").orElseThrow().partitions())
                    .isEqualTo(1);
        }
    }
}
