package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.txn.TransactionRecord;
import io.kaas.broker.txn.TransactionStateStore;
import io.kaas.broker.txn.TxnState;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.layout.ClusterDir;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transaction protocol v2 at the end of the epoch range (Apache 4.4's TransactionMetadata): a transaction ended
 * at epoch 32766 writes its markers at 32767 and the next one continues under a new producer id at epoch 0,
 * which EndTxn v5 answers; a retry of that EndTxn with the old id and epoch gets the same answer. The slot file
 * is edited while the broker is down to put the id at epoch 32766 (reaching it by requests would take 32766 ends).
 */
class TransactionEpochExhaustionIT {
    @TempDir
    Path dir;

    @Test
    void theEndOfTheEpochRangeMovesToANewProducerId() throws Exception {
        try (TestBroker b = new TestBroker(dir.resolve("data"))) {
            b.broker().engine().createTopic("ex", 1, TopicConfig.EMPTY);
            long pid;
            try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
                InitProducerIdResponseData s = c.roundTrip(
                        ApiKeys.INIT_PRODUCER_ID,
                        (short) 5,
                        new InitProducerIdRequestData()
                                .setTransactionalId("ex")
                                .setTransactionTimeoutMs(60_000)
                                .setProducerId(-1)
                                .setProducerEpoch((short) -1));
                pid = s.producerId();
            }
            b.broker().stop();
            Path file = ClusterDir.txnStateSlot(ClusterDir.of(b.dataDir()), TransactionStateStore.slotFor("ex"));
            TransactionStateStore.SlotFile slot =
                    StateJson.read(file, TransactionStateStore.SlotFile.class).orElseThrow();
            List<TransactionRecord> next = new ArrayList<>();
            for (TransactionRecord r : slot.transactions()) {
                next.add(new TransactionRecord(
                        r.transactionalId(),
                        r.producerId(),
                        (short) (Short.MAX_VALUE - 1),
                        (short) -1,
                        r.timeoutMs(),
                        TxnState.EMPTY,
                        List.of(),
                        List.of(),
                        List.of(),
                        -1,
                        r.lastUpdateTimestamp(),
                        null));
            }
            StateJson.write(file, new TransactionStateStore.SlotFile(slot.version(), next));
            b.restart();

            try (RawKafkaConnection c = new RawKafkaConnection(b.broker().boundPort())) {
                short exhausted = Short.MAX_VALUE - 1;
                ProduceRequestData produce = new ProduceRequestData()
                        .setAcks((short) -1)
                        .setTimeoutMs(5000)
                        .setTransactionalId("ex");
                produce.topicData()
                        .add(new ProduceRequestData.TopicProduceData()
                                .setName("ex")
                                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                        .setIndex(0)
                                        .setRecords(MemoryRecords.withTransactionalRecords(
                                                Compression.NONE,
                                                pid,
                                                exhausted,
                                                0,
                                                new SimpleRecord("last".getBytes()))))));
                ProduceResponseData produced = c.roundTrip(ApiKeys.PRODUCE, (short) 12, produce);
                assertThat(produced.responses()
                                .iterator()
                                .next()
                                .partitionResponses()
                                .get(0)
                                .errorCode())
                        .isEqualTo(Errors.NONE.code());

                EndTxnRequestData end = new EndTxnRequestData()
                        .setTransactionalId("ex")
                        .setProducerId(pid)
                        .setProducerEpoch(exhausted)
                        .setCommitted(true);
                EndTxnResponseData first = c.roundTrip(ApiKeys.END_TXN, (short) 5, end);
                assertThat(first.errorCode()).isEqualTo(Errors.NONE.code());
                assertThat(first.producerId()).as("a new producer id").isNotEqualTo(pid);
                assertThat(first.producerEpoch()).isZero();
                EndTxnResponseData retry = c.roundTrip(ApiKeys.END_TXN, (short) 5, end.duplicate());
                assertThat(retry.errorCode())
                        .as("a retry with the old id and epoch")
                        .isEqualTo(Errors.NONE.code());
                assertThat(retry.producerId()).isEqualTo(first.producerId());
                assertThat(retry.producerEpoch()).isZero();
            }
            io.kaas.storage.PartitionState state = b.broker()
                    .engine()
                    .partition(new io.kaas.storage.TopicPartition("ex", 0))
                    .state();
            assertThat(state.highWatermark())
                    .as("the record and its COMMIT marker (at epoch 32767)")
                    .isEqualTo(2);
            assertThat(state.lastStableOffset()).isEqualTo(2);
        }
    }
}
