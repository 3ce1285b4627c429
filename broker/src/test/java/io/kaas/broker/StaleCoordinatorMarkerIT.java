package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition leader refuses a COMMIT/ABORT marker from a coordinator epoch older than the last marker it wrote for the
 * producer (TRANSACTION_COORDINATOR_FENCED, as Apache's): with several brokers over one directory, a coordinator that
 * lost the transactional id's slot may still have a WriteTxnMarkers on its way, and with a producer epoch kept across
 * transactions that late marker would end the producer's next transaction. Raw WriteTxnMarkers, as coordinators in two
 * coordinator epochs would send them.
 */
class StaleCoordinatorMarkerIT {
    @TempDir
    Path dir;

    @Test
    void aMarkerFromAnOlderCoordinatorEpochIsRefusedAndWritesNothing() throws Exception {
        TopicPartition tp = new TopicPartition("t", 0);
        try (TestBroker b = new TestBroker(dir);
                Admin admin = b.admin();
                RawKafkaConnection raw = new RawKafkaConnection(b.broker().boundPort())) {
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get();
            KafkaProducer<byte[], byte[]> producer = b.producer(Map.of("transactional.id", "stale-marker"));
            try {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("t", 0, null, "a".getBytes(StandardCharsets.UTF_8)))
                        .get();
                ProducerState state = admin.describeProducers(List.of(tp))
                        .partitionResult(tp)
                        .get()
                        .activeProducers()
                        .get(0);
                short epoch = (short) state.producerEpoch();

                assertThat(marker(raw, state.producerId(), epoch, true, 5))
                        .as("a coordinator in epoch 5")
                        .isEqualTo(Errors.NONE);
                producer.send(new ProducerRecord<>("t", 0, null, "b".getBytes(StandardCharsets.UTF_8)))
                        .get(); // open again
                long end = admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                        .partitionResult(tp)
                        .get()
                        .offset();

                assertThat(marker(raw, state.producerId(), epoch, false, 4))
                        .as("its predecessor's late marker")
                        .isEqualTo(Errors.TRANSACTION_COORDINATOR_FENCED);
                assertThat(admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                                .partitionResult(tp)
                                .get()
                                .offset())
                        .as("nothing written")
                        .isEqualTo(end);
                assertThat(admin.describeProducers(List.of(tp))
                                .partitionResult(tp)
                                .get()
                                .activeProducers()
                                .get(0)
                                .currentTransactionStartOffset())
                        .as("the transaction is still open")
                        .isPresent();

                assertThat(marker(raw, state.producerId(), epoch, false, 5)).isEqualTo(Errors.NONE);
            } finally {
                producer.close(Duration.ZERO);
            }
        }
    }

    private static Errors marker(
            RawKafkaConnection raw, long producerId, short epoch, boolean commit, int coordinatorEpoch)
            throws Exception {
        WriteTxnMarkersRequestData request = new WriteTxnMarkersRequestData();
        request.markers()
                .add(new WriteTxnMarkersRequestData.WritableTxnMarker()
                        .setProducerId(producerId)
                        .setProducerEpoch(epoch)
                        .setTransactionResult(commit)
                        .setCoordinatorEpoch(coordinatorEpoch)
                        .setTopics(List.of(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                                .setName("t")
                                .setPartitionIndexes(List.of(0)))));
        WriteTxnMarkersResponseData response = raw.roundTrip(ApiKeys.WRITE_TXN_MARKERS, (short) 1, request);
        return Errors.forCode(
                response.markers().get(0).topics().get(0).partitions().get(0).errorCode());
    }
}
