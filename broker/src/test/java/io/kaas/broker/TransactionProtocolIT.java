package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's answers to calls out of order, stale epochs and unknown ids, and Produce's
 * transaction gate, request by request (what a well-behaved client never shows).
 */
class TransactionProtocolIT {
    @TempDir
    static Path dir;

    static TestBroker b;
    static RawKafkaConnection c;

    @BeforeAll
    static void start() throws Exception {
        b = new TestBroker(dir);
        b.broker().engine().createTopic("tp", 1, TopicConfig.EMPTY);
        c = new RawKafkaConnection(b.broker().boundPort());
    }

    @AfterAll
    static void stop() throws Exception {
        c.close();
        b.close();
    }

    static InitProducerIdResponseData init(String id, long pid, short epoch) throws Exception {
        return c.roundTrip(
                ApiKeys.INIT_PRODUCER_ID,
                (short) 5,
                new InitProducerIdRequestData()
                        .setTransactionalId(id)
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(pid)
                        .setProducerEpoch(epoch));
    }

    static short addPartition(short version, String id, long pid, short epoch, String topic) throws Exception {
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic()
                .setName(topic)
                .setPartitions(List.of(0)));
        AddPartitionsToTxnResponseData r = c.roundTrip(
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                version,
                new AddPartitionsToTxnRequestData()
                        .setV3AndBelowTransactionalId(id)
                        .setV3AndBelowProducerId(pid)
                        .setV3AndBelowProducerEpoch(epoch)
                        .setV3AndBelowTopics(topics));
        return r.resultsByTopicV3AndBelow()
                .find(topic)
                .resultsByPartition()
                .find(0)
                .partitionErrorCode();
    }

    static short endTxn(String id, long pid, short epoch, boolean commit) throws Exception {
        EndTxnResponseData r = c.roundTrip(
                ApiKeys.END_TXN,
                (short) 4,
                new EndTxnRequestData()
                        .setTransactionalId(id)
                        .setProducerId(pid)
                        .setProducerEpoch(epoch)
                        .setCommitted(commit));
        return r.errorCode();
    }

    static EndTxnResponseData endTxnV5(String id, long pid, short epoch, boolean commit) throws Exception {
        return c.roundTrip(
                ApiKeys.END_TXN,
                (short) 5,
                new EndTxnRequestData()
                        .setTransactionalId(id)
                        .setProducerId(pid)
                        .setProducerEpoch(epoch)
                        .setCommitted(commit));
    }

    static short produce(String transactionalId, MemoryRecords records) throws Exception {
        return produce((short) 9, transactionalId, records);
    }

    static short produce(short version, String transactionalId, MemoryRecords records) throws Exception {
        ProduceRequestData r =
                new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000).setTransactionalId(transactionalId);
        r.topicData()
                .add(new ProduceRequestData.TopicProduceData()
                        .setName("tp")
                        .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                .setIndex(0)
                                .setRecords(records))));
        ProduceResponseData resp = c.roundTrip(ApiKeys.PRODUCE, version, r);
        return resp.responses().iterator().next().partitionResponses().get(0).errorCode();
    }

    @Test
    void findCoordinatorAnswersThisBrokerForTransactionalIds() throws Exception {
        FindCoordinatorResponseData r = c.roundTrip(
                ApiKeys.FIND_COORDINATOR,
                (short) 4,
                new FindCoordinatorRequestData().setKeyType((byte) 1).setCoordinatorKeys(List.of("any")));
        assertThat(r.coordinators().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.coordinators().get(0).port()).isEqualTo(b.broker().boundPort());
    }

    @Test
    void callsOutOfOrderOrWithStaleIdsAreRefused() throws Exception {
        assertThat(endTxn("nobody", 1, (short) 0, true)).isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING.code());
        InitProducerIdResponseData first = init("order", -1, (short) -1);
        long pid = first.producerId();
        short epoch = first.producerEpoch();
        assertThat(endTxn("order", pid, epoch, true)).as("nothing begun").isEqualTo(Errors.INVALID_TXN_STATE.code());
        assertThat(addPartition((short) 3, "order", pid + 1, epoch, "tp"))
                .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING.code());
        assertThat(addPartition((short) 3, "order", pid, (short) (epoch - 1), "tp"))
                .isEqualTo(Errors.PRODUCER_FENCED.code());
        assertThat(addPartition((short) 1, "order", pid, (short) (epoch - 1), "tp"))
                .as("before KIP-588")
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
        assertThat(addPartition((short) 3, "order", pid, epoch, "no-such-topic"))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(addPartition((short) 3, "order", pid, epoch, "tp")).isEqualTo(Errors.NONE.code());

        TxnOffsetCommitResponseData offsets = c.roundTrip(
                ApiKeys.TXN_OFFSET_COMMIT,
                (short) 3,
                new TxnOffsetCommitRequestData()
                        .setTransactionalId("order")
                        .setGroupId("g")
                        .setProducerId(pid)
                        .setProducerEpoch(epoch)
                        .setGenerationIdOrMemberEpoch(-1)
                        .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                                .setName("tp")
                                .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(1))))));
        assertThat(offsets.topics().get(0).partitions().get(0).errorCode())
                .as("group not added")
                .isEqualTo(Errors.INVALID_TXN_STATE.code());
        AddOffsetsToTxnResponseData added = c.roundTrip(
                ApiKeys.ADD_OFFSETS_TO_TXN,
                (short) 3,
                new AddOffsetsToTxnRequestData()
                        .setTransactionalId("order")
                        .setProducerId(pid)
                        .setProducerEpoch(epoch)
                        .setGroupId("g"));
        assertThat(added.errorCode()).isEqualTo(Errors.NONE.code());

        // A second session while the transaction is open: the open one is aborted first, meanwhile
        // CONCURRENT_TRANSACTIONS.
        InitProducerIdResponseData fencing = init("order", -1, (short) -1);
        assertThat(fencing.errorCode()).isIn(Errors.CONCURRENT_TRANSACTIONS.code(), Errors.NONE.code());
        assertThat(endTxn("order", pid, epoch, true)).as("fenced by the bump").isEqualTo(Errors.PRODUCER_FENCED.code());
        InitProducerIdResponseData second;
        do {
            second = init("order", -1, (short) -1);
        } while (second.errorCode() == Errors.CONCURRENT_TRANSACTIONS.code());
        assertThat(second.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(second.producerId()).isEqualTo(pid);
        assertThat(second.producerEpoch()).isEqualTo((short) (epoch + 2)); // one bump to fence, one for the session

        // KIP-360: re-init with the current id and epoch bumps once; a retry with the previous epoch gets the same
        // answer.
        InitProducerIdResponseData bumped = init("order", pid, second.producerEpoch());
        assertThat(bumped.producerEpoch()).isEqualTo((short) (second.producerEpoch() + 1));
        assertThat(init("order", pid, second.producerEpoch()).producerEpoch()).isEqualTo(bumped.producerEpoch());
        assertThat(init("order", pid, (short) 0).errorCode()).isEqualTo(Errors.PRODUCER_FENCED.code());
    }

    @Test
    void stagedOffsetsAreUnstableForRequireStableFetchesUntilTheTransactionEnds() throws Exception {
        InitProducerIdResponseData s = init("stable", -1, (short) -1);
        c.roundTrip(
                ApiKeys.ADD_OFFSETS_TO_TXN,
                (short) 3,
                new AddOffsetsToTxnRequestData()
                        .setTransactionalId("stable")
                        .setProducerId(s.producerId())
                        .setProducerEpoch(s.producerEpoch())
                        .setGroupId("sg"));
        TxnOffsetCommitResponseData staged = c.roundTrip(
                ApiKeys.TXN_OFFSET_COMMIT,
                (short) 3,
                new TxnOffsetCommitRequestData()
                        .setTransactionalId("stable")
                        .setGroupId("sg")
                        .setProducerId(s.producerId())
                        .setProducerEpoch(s.producerEpoch())
                        .setGenerationIdOrMemberEpoch(-1)
                        .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                                .setName("tp")
                                .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(7))))));
        assertThat(staged.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(fetchOffset("sg", true).errorCode()).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT.code());
        assertThat(fetchOffset("sg", false).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(fetchOffset("sg", false).committedOffset()).isEqualTo(-1);
        assertThat(endTxn("stable", s.producerId(), s.producerEpoch(), true)).isEqualTo(Errors.NONE.code());
        assertThat(fetchOffset("sg", true).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(fetchOffset("sg", true).committedOffset()).isEqualTo(7);
    }

    static OffsetFetchResponseData.OffsetFetchResponsePartition fetchOffset(String group, boolean requireStable)
            throws Exception {
        OffsetFetchResponseData r = c.roundTrip(
                ApiKeys.OFFSET_FETCH,
                (short) 7,
                new OffsetFetchRequestData()
                        .setGroupId(group)
                        .setRequireStable(requireStable)
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic()
                                .setName("tp")
                                .setPartitionIndexes(List.of(0)))));
        return r.topics().get(0).partitions().get(0);
    }

    @Test
    void addPartitionsV4VerifyOnlyChecksMembership() throws Exception {
        InitProducerIdResponseData s = init("verify", -1, (short) -1);
        assertThat(addPartition((short) 3, "verify", s.producerId(), s.producerEpoch(), "tp"))
                .isEqualTo(Errors.NONE.code());
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic()
                .setName("tp")
                .setPartitions(List.of(0)));
        AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection txns =
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection();
        txns.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction()
                .setTransactionalId("verify")
                .setProducerId(s.producerId())
                .setProducerEpoch(s.producerEpoch())
                .setVerifyOnly(true)
                .setTopics(topics));
        AddPartitionsToTxnResponseData r = c.roundTrip(
                ApiKeys.ADD_PARTITIONS_TO_TXN, (short) 4, new AddPartitionsToTxnRequestData().setTransactions(txns));
        assertThat(r.resultsByTransaction()
                        .find("verify")
                        .topicResults()
                        .find("tp")
                        .resultsByPartition()
                        .find(0)
                        .partitionErrorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(endTxn("verify", s.producerId(), s.producerEpoch(), false)).isEqualTo(Errors.NONE.code());
        r = c.roundTrip(
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                (short) 4,
                new AddPartitionsToTxnRequestData().setTransactions(txns.duplicate()));
        assertThat(r.resultsByTransaction()
                        .find("verify")
                        .topicResults()
                        .find("tp")
                        .resultsByPartition()
                        .find(0)
                        .partitionErrorCode())
                .as("the transaction ended (Apache 4.4's answer)")
                .isEqualTo(Errors.TRANSACTION_ABORTABLE.code());
    }

    @Test
    void committingTwiceIsARetryAndAbortingACommittedTransactionIsRefused() throws Exception {
        InitProducerIdResponseData s = init("twice", -1, (short) -1);
        assertThat(addPartition((short) 3, "twice", s.producerId(), s.producerEpoch(), "tp"))
                .isEqualTo(Errors.NONE.code());
        assertThat(endTxn("twice", s.producerId(), s.producerEpoch(), true)).isEqualTo(Errors.NONE.code());
        assertThat(endTxn("twice", s.producerId(), s.producerEpoch(), true)).isEqualTo(Errors.NONE.code());
        assertThat(endTxn("twice", s.producerId(), s.producerEpoch(), false))
                .isEqualTo(Errors.INVALID_TXN_STATE.code());
    }

    @Test
    void produceRefusesClientMarkersAndTransactionalBatchesOutsideATransaction() throws Exception {
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(
                1L, 99L, (short) 0, new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        assertThat(produce(null, marker)).isEqualTo(Errors.INVALID_RECORD.code());

        InitProducerIdResponseData s = init("gate", -1, (short) -1);
        MemoryRecords batch = MemoryRecords.withTransactionalRecords(
                Compression.NONE, s.producerId(), s.producerEpoch(), 0, new SimpleRecord("x".getBytes()));
        assertThat(produce("gate", batch)).as("partition not added").isEqualTo(Errors.INVALID_TXN_STATE.code());
        assertThat(addPartition((short) 3, "gate", s.producerId(), s.producerEpoch(), "tp"))
                .isEqualTo(Errors.NONE.code());
        assertThat(produce("gate", batch)).isEqualTo(Errors.NONE.code());
        assertThat(endTxn("gate", s.producerId(), s.producerEpoch(), false)).isEqualTo(Errors.NONE.code());
        assertThat(b.broker()
                        .engine()
                        .partition(new io.kaas.storage.TopicPartition("tp", 0))
                        .state()
                        .lastStableOffset())
                .isEqualTo(b.broker()
                        .engine()
                        .partition(new io.kaas.storage.TopicPartition("tp", 0))
                        .state()
                        .highWatermark());
    }

    static MemoryRecords txnBatch(long pid, short epoch, int sequence) {
        return MemoryRecords.withTransactionalRecords(
                Compression.NONE, pid, epoch, sequence, new SimpleRecord("x".getBytes()));
    }

    @Test
    void produceV12AddsThePartitionWhileOlderVersionsOnlyVerify() throws Exception {
        InitProducerIdResponseData s = init("implicit", -1, (short) -1);
        assertThat(produce((short) 10, "implicit", txnBatch(s.producerId(), s.producerEpoch(), 0)))
                .as("v10: KIP-890 part 1's answer")
                .isEqualTo(Errors.INVALID_TXN_STATE.code());
        assertThat(produce((short) 11, "implicit", txnBatch(s.producerId(), s.producerEpoch(), 0)))
                .as("v11")
                .isEqualTo(Errors.TRANSACTION_ABORTABLE.code());
        assertThat(produce((short) 12, "implicit", txnBatch(s.producerId(), (short) (s.producerEpoch() + 1), 0)))
                .as("a newer epoch than the coordinator's")
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
        assertThat(produce((short) 12, "implicit", txnBatch(s.producerId(), s.producerEpoch(), 0)))
                .as("v12 adds the partition (KIP-890 part 2)")
                .isEqualTo(Errors.NONE.code());
        try (org.apache.kafka.clients.admin.Admin admin = b.admin()) {
            assertThat(admin.describeTransactions(List.of("implicit"))
                            .description("implicit")
                            .get()
                            .topicPartitions())
                    .containsExactly(new org.apache.kafka.common.TopicPartition("tp", 0));
        }
        EndTxnResponseData end = endTxnV5("implicit", s.producerId(), s.producerEpoch(), true);
        assertThat(end.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(end.producerId()).isEqualTo(s.producerId());
        assertThat(end.producerEpoch()).as("bumped by the commit").isEqualTo((short) (s.producerEpoch() + 1));
        assertThat(produce((short) 12, "implicit", txnBatch(s.producerId(), s.producerEpoch(), 1)))
                .as("the old epoch is fenced by the COMMIT marker's")
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
        assertThat(produce((short) 12, "implicit", txnBatch(s.producerId(), end.producerEpoch(), 0)))
                .as("the next transaction starts at sequence 0 with the new epoch")
                .isEqualTo(Errors.NONE.code());
        EndTxnResponseData abort = endTxnV5("implicit", s.producerId(), end.producerEpoch(), false);
        assertThat(abort.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(abort.producerEpoch()).isEqualTo((short) (s.producerEpoch() + 2));
        io.kaas.storage.PartitionState state = b.broker()
                .engine()
                .partition(new io.kaas.storage.TopicPartition("tp", 0))
                .state();
        assertThat(state.lastStableOffset()).isEqualTo(state.highWatermark());
    }

    @Test
    void endTxnV5RetriesAndAbortsWithNothingOpenAsApache() throws Exception {
        InitProducerIdResponseData s = init("v5", -1, (short) -1);
        long pid = s.producerId();
        short e = s.producerEpoch();
        assertThat(endTxnV5("v5", pid, e, true).errorCode())
                .as("nothing begun")
                .isEqualTo(Errors.INVALID_TXN_STATE.code());
        EndTxnResponseData empty = endTxnV5("v5", pid, e, false);
        assertThat(empty.errorCode())
                .as("an abort with nothing open bumps the epoch")
                .isEqualTo(Errors.NONE.code());
        assertThat(empty.producerEpoch()).isEqualTo((short) (e + 1));
        e = empty.producerEpoch();
        assertThat(addPartition((short) 3, "v5", pid, e, "tp")).isEqualTo(Errors.NONE.code());
        EndTxnResponseData commit = endTxnV5("v5", pid, e, true);
        assertThat(commit.producerEpoch()).isEqualTo((short) (e + 1));
        EndTxnResponseData retry = endTxnV5("v5", pid, e, true);
        assertThat(retry.errorCode())
                .as("a retry with the epoch before the bump")
                .isEqualTo(Errors.NONE.code());
        assertThat(retry.producerEpoch()).isEqualTo(commit.producerEpoch());
        assertThat(endTxnV5("v5", pid, e, false).errorCode())
                .as("aborting the committed one")
                .isEqualTo(Errors.INVALID_TXN_STATE.code());
        assertThat(endTxnV5("v5", pid, (short) (e - 1), true).errorCode()).isEqualTo(Errors.PRODUCER_FENCED.code());
        assertThat(endTxnV5("v5", pid + 1, commit.producerEpoch(), true).errorCode())
                .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING.code());
    }

    @Test
    void txnOffsetCommitV5AddsTheGroup() throws Exception {
        InitProducerIdResponseData s = init("offsets-v5", -1, (short) -1);
        TxnOffsetCommitResponseData r = c.roundTrip(
                ApiKeys.TXN_OFFSET_COMMIT,
                (short) 5,
                new TxnOffsetCommitRequestData()
                        .setTransactionalId("offsets-v5")
                        .setGroupId("g5")
                        .setProducerId(s.producerId())
                        .setProducerEpoch(s.producerEpoch())
                        .setGenerationIdOrMemberEpoch(-1)
                        .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                                .setName("tp")
                                .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(3))))));
        assertThat(r.topics().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(endTxnV5("offsets-v5", s.producerId(), s.producerEpoch(), true)
                        .errorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(fetchOffset("g5", true).committedOffset()).isEqualTo(3);
    }
}
