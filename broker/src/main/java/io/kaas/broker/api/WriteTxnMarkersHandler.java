package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.txn.TransactionMarkerWriter;
import io.kaas.broker.txn.TxnPartition;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.PartitionLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * WriteTxnMarkers: the transaction coordinator's request to a partition's leader (with several brokers over one
 * directory; a broker on its own writes its markers itself; for a {@code __consumer_offsets} slot, to the group's
 * coordinator, which commits or drops the offsets the producer staged in the slot's groups), and {@code Admin.abortTransaction}
 * ({@code kafka-transactions.sh abort}, KIP-664) closing a hanging transaction. Answered once each marker is fsynced; a partition whose
 * producer state shows the marker already written answers NONE without a second one, one that has seen
 * a newer epoch INVALID_PRODUCER_EPOCH, one that wrote a marker of a newer coordinator epoch for the producer
 * TRANSACTION_COORDINATOR_FENCED.
 */
public final class WriteTxnMarkersHandler implements ApiHandler<WriteTxnMarkersRequestData> {
    private final TopicCatalog topics;
    private final TransactionMarkerWriter markers;
    private final GroupCoordinator groups;
    private final BooleanSupplier mayAcknowledge;

    public WriteTxnMarkersHandler(TopicCatalog topics, TransactionMarkerWriter markers, GroupCoordinator groups) {
        this(topics, markers, groups, () -> true);
    }

    /** {@code mayAcknowledge}: the self-fence of a broker sharing its directory, asked before each marker and after it. */
    public WriteTxnMarkersHandler(
            TopicCatalog topics,
            TransactionMarkerWriter markers,
            GroupCoordinator groups,
            BooleanSupplier mayAcknowledge) {
        this.topics = topics;
        this.markers = markers;
        this.groups = groups;
        this.mayAcknowledge = mayAcknowledge;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, WriteTxnMarkersRequestData request) {
        WriteTxnMarkersResponseData response = new WriteTxnMarkersResponseData();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (WriteTxnMarkersRequestData.WritableTxnMarker m : request.markers()) {
            WriteTxnMarkersResponseData.WritableTxnMarkerResult mr =
                    new WriteTxnMarkersResponseData.WritableTxnMarkerResult().setProducerId(m.producerId());
            response.markers().add(mr);
            for (WriteTxnMarkersRequestData.WritableTxnMarkerTopic t : m.topics()) {
                WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult tr =
                        new WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult().setName(t.name());
                mr.topics().add(tr);
                for (int partition : t.partitionIndexes()) {
                    WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult pr =
                            new WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult()
                                    .setPartitionIndex(partition);
                    tr.partitions().add(pr);
                    if (TxnPartition.isOffsetsSlot(t.name(), partition)) {
                        // A group slot: the pending offsets of the producer's groups there are committed or dropped.
                        pr.setErrorCode(groups.completeTransaction(partition, m.producerId(), m.transactionResult())
                                .code());
                        continue;
                    }
                    if (!TopicCatalog.hasPartition(topics.topic(t.name()), partition)) {
                        pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                        continue;
                    }
                    try {
                        PartitionLog log = topics.partition(t.name(), partition);
                        if (!mayAcknowledge.getAsBoolean()) {
                            pr.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                            continue;
                        }
                        if (TransactionMarkerWriter.isStale(log, m.producerId(), m.producerEpoch())) {
                            pr.setErrorCode(Errors.INVALID_PRODUCER_EPOCH.code());
                            continue;
                        }
                        pending.add(markers.writeOne(
                                        log,
                                        m.producerId(),
                                        m.producerEpoch(),
                                        m.transactionResult(),
                                        m.coordinatorEpoch())
                                .handle((v, e) -> pr.setErrorCode((e != null
                                                ? ErrorMapping.toKafka(e)
                                                : mayAcknowledge.getAsBoolean()
                                                        ? Errors.NONE
                                                        : Errors.NOT_LEADER_OR_FOLLOWER)
                                        .code())));
                    } catch (RuntimeException e) {
                        pr.setErrorCode(ErrorMapping.toKafka(e).code());
                    }
                }
            }
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .thenApply(v -> response);
    }
}
