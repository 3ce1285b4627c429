package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.api.Uuids;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every API at every version we advertise gets an answer that decodes at that version: responses
 * set version-specific fields only where the version has them (old clients such as librdkafka use
 * old versions). Requests carry real topics and partitions where that exercises per-partition fields.
 */
class EveryVersionIT {
    @TempDir
    Path dir;

    @Test
    void everyAdvertisedVersionIsAnswered() throws Exception {
        try (TestBroker b = new TestBroker(dir);
                RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
            b.broker().engine().createTopic("v", 1, io.kaas.storage.format.TopicConfig.EMPTY);
            Uuid id = Uuids.toKafka(b.broker().engine().topic("v").orElseThrow().topicId());
            ApiVersionsResponseData versions = c.roundTrip(
                    ApiKeys.API_VERSIONS,
                    (short) 3,
                    new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1"));
            List<String> answered = new ArrayList<>();
            for (ApiVersionsResponseData.ApiVersion v : versions.apiKeys()) {
                ApiKeys api = ApiKeys.forId(v.apiKey());
                for (short version = v.minVersion(); version <= v.maxVersion(); version++) {
                    ApiMessage request = realistic(api, version, id);
                    try {
                        request.size(new org.apache.kafka.common.protocol.ObjectSerializationCache(), version);
                    } catch (RuntimeException cannotEncode) {
                        continue; // a default request that is not valid at this version: nothing to send
                    }
                    ApiMessage response = c.roundTrip(api, version, request);
                    assertThat(response).as("%s v%d", api, version).isNotNull();
                    answered.add(api + " v" + version);
                }
            }
            assertThat(answered)
                    .contains(
                            "PRODUCE v3",
                            "PRODUCE v13",
                            "FETCH v4",
                            "FETCH v18",
                            "LIST_OFFSETS v1",
                            "METADATA v0",
                            "OFFSET_FETCH v1",
                            "OFFSET_FETCH v9",
                            "FIND_COORDINATOR v0",
                            "FIND_COORDINATOR v6",
                            "CONSUMER_GROUP_HEARTBEAT v0",
                            "CONSUMER_GROUP_HEARTBEAT v1",
                            "CONSUMER_GROUP_DESCRIBE v0",
                            "CONSUMER_GROUP_DESCRIBE v1",
                            "STREAMS_GROUP_HEARTBEAT v0",
                            "STREAMS_GROUP_HEARTBEAT v1",
                            "STREAMS_GROUP_DESCRIBE v0",
                            "STREAMS_GROUP_DESCRIBE v1",
                            "STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE v0",
                            "UPDATE_FEATURES v0",
                            "UPDATE_FEATURES v2",
                            "LIST_CONFIG_RESOURCES v0",
                            "LIST_CONFIG_RESOURCES v1",
                            "GET_TELEMETRY_SUBSCRIPTIONS v0",
                            "PUSH_TELEMETRY v0");
        }
    }

    private static ApiMessage realistic(ApiKeys api, short version, Uuid topicId) {
        BiFunction<Short, Uuid, ApiMessage> f = switch (api) {
            case PRODUCE ->
                (v, id) -> {
                    ProduceRequestData r =
                            new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000);
                    r.topicData()
                            .add(new ProduceRequestData.TopicProduceData()
                                    .setName(v < 13 ? "v" : "")
                                    .setTopicId(v >= 13 ? id : Uuid.ZERO_UUID)
                                    .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                            .setIndex(0)
                                            .setRecords(MemoryRecords.withRecords(
                                                    Compression.NONE, new SimpleRecord("x".getBytes()))))));
                    return r;
                };
            case FETCH ->
                (v, id) -> {
                    FetchRequestData r = new FetchRequestData()
                            .setMaxWaitMs(0)
                            .setMinBytes(1)
                            .setReplicaId(-1);
                    r.topics()
                            .add(new FetchRequestData.FetchTopic()
                                    .setTopic(v < 13 ? "v" : "")
                                    .setTopicId(v >= 13 ? id : Uuid.ZERO_UUID)
                                    .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                            .setPartition(0)
                                            .setFetchOffset(0)
                                            .setPartitionMaxBytes(1 << 20))));
                    return r;
                };
            case LIST_OFFSETS ->
                (v, id) -> new ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                .setName("v")
                                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(-1)))));
            case METADATA ->
                (v, id) -> new MetadataRequestData()
                        .setTopics(
                                v == 0 ? List.of(new MetadataRequestData.MetadataRequestTopic().setName("v")) : null);
            case OFFSET_COMMIT ->
                (v, id) -> new OffsetCommitRequestData()
                        .setGroupId("g")
                        .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                                .setName("v")
                                .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(1)))));
            case OFFSET_FETCH ->
                (v, id) -> v < 8
                        ? new OffsetFetchRequestData()
                                .setGroupId("g")
                                .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic()
                                        .setName("v")
                                        .setPartitionIndexes(List.of(0))))
                        : new OffsetFetchRequestData()
                                .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                        .setGroupId("g")
                                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                                .setName("v")
                                                .setPartitionIndexes(List.of(0))))));
            case FIND_COORDINATOR ->
                (v, id) -> new FindCoordinatorRequestData()
                        .setKey(v < 4 ? "g" : "")
                        .setCoordinatorKeys(v >= 4 ? List.of("g") : List.of());
            case DESCRIBE_GROUPS -> (v, id) -> new DescribeGroupsRequestData().setGroups(List.of("g", "missing"));
            case CONSUMER_GROUP_HEARTBEAT ->
                (v, id) -> new ConsumerGroupHeartbeatRequestData()
                        .setGroupId("cg")
                        .setMemberId("member-v" + v)
                        .setMemberEpoch(0)
                        .setRebalanceTimeoutMs(30_000)
                        .setSubscribedTopicNames(List.of("v"))
                        .setTopicPartitions(List.of());
            case CONSUMER_GROUP_DESCRIBE ->
                (v, id) -> new ConsumerGroupDescribeRequestData().setGroupIds(List.of("cg", "g", "missing"));
            case STREAMS_GROUP_HEARTBEAT ->
                (v, id) -> new org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData()
                        .setGroupId("sg")
                        .setMemberId("member-v" + v)
                        .setMemberEpoch(0)
                        .setRebalanceTimeoutMs(30_000)
                        .setProcessId("process-v" + v)
                        .setTopology(new org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData.Topology()
                                .setEpoch(0)
                                .setSubtopologies(List.of(
                                        new org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData
                                                        .Subtopology()
                                                .setSubtopologyId("0")
                                                .setSourceTopics(List.of("v")))))
                        .setActiveTasks(List.of())
                        .setStandbyTasks(List.of())
                        .setWarmupTasks(List.of());
            case STREAMS_GROUP_DESCRIBE ->
                (v, id) -> new org.apache.kafka.common.message.StreamsGroupDescribeRequestData()
                        .setGroupIds(List.of("sg", "cg", "missing"))
                        .setIncludeTopologyDescription(v >= 1);
            case STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE ->
                (v, id) -> new org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateRequestData()
                        .setGroupId("sg")
                        .setMemberId("member-v1")
                        .setTopologyEpoch(0)
                        .setTopologyDescription(new org.apache.kafka.common.message
                                .StreamsGroupTopologyDescriptionUpdateRequestData.TopologyDescription());
            default -> (v, id) -> api.messageType.newRequest();
        };
        return f.apply(version, topicId);
    }
}
