package io.kaas.broker;

import io.kaas.broker.api.ApiVersionsHandler;
import io.kaas.broker.api.DeleteRecordsHandler;
import io.kaas.broker.api.DescribeClusterHandler;
import io.kaas.broker.api.DescribeProducersHandler;
import io.kaas.broker.api.DescribeTopicPartitionsHandler;
import io.kaas.broker.api.FetchHandler;
import io.kaas.broker.api.FindCoordinatorHandler;
import io.kaas.broker.api.ListOffsetsHandler;
import io.kaas.broker.api.MetadataHandler;
import io.kaas.broker.api.OffsetForLeaderEpochHandler;
import io.kaas.broker.api.ProduceHandler;
import io.kaas.broker.fetch.FetchSessionCache;
import io.kaas.broker.txn.TransactionalProduceGate;
import io.kaas.protocol.RequestInvoker;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs every client uses for records and where they are: ApiVersions, Metadata and the cluster's shape,
 * Produce, Fetch, ListOffsets, DeleteRecords, leader epochs, producers, FindCoordinator.
 */
final class ClientDataApis {
    private ClientDataApis() {}

    /** Registers them on {@code invoker}. */
    static void register(RequestInvoker invoker, ApiHandlers.Parts p) {
        invoker.register(
                ApiKeys.API_VERSIONS,
                ApiKeys.API_VERSIONS.latestVersion(),
                new ApiVersionsHandler(invoker.served(), p.features()));
        invoker.register(
                ApiKeys.METADATA,
                ApiKeys.METADATA.latestVersion(),
                new MetadataHandler(p.topics(), p.nodeFor(), p.leaders()));
        invoker.register(
                ApiKeys.PRODUCE,
                ApiKeys.PRODUCE.latestVersion(),
                new ProduceHandler(
                        p.topics(),
                        new TransactionalProduceGate(p.transactions(), p.transactionPeers()),
                        p.metrics().traffic(),
                        p.mayAcknowledge()));
        invoker.register(
                ApiKeys.FETCH,
                ApiKeys.FETCH.latestVersion(),
                new FetchHandler(
                        p.topics(),
                        p.timer(),
                        p.handlerPool(),
                        new FetchSessionCache(p.config().fetchSessionCacheSlots(), System::currentTimeMillis),
                        p.metrics().traffic(),
                        p.throttling()));
        invoker.register(
                ApiKeys.LIST_OFFSETS,
                ApiKeys.LIST_OFFSETS.latestVersion(),
                new ListOffsetsHandler(p.topics(), p.metrics().codec()));
        invoker.register(
                ApiKeys.DESCRIBE_PRODUCERS,
                ApiKeys.DESCRIBE_PRODUCERS.latestVersion(),
                new DescribeProducersHandler(p.topics()));
        invoker.register(
                ApiKeys.DELETE_RECORDS, ApiKeys.DELETE_RECORDS.latestVersion(), new DeleteRecordsHandler(p.topics()));
        invoker.register(
                ApiKeys.DESCRIBE_CLUSTER,
                ApiKeys.DESCRIBE_CLUSTER.latestVersion(),
                new DescribeClusterHandler(p.nodeFor(), p.leaders()));
        invoker.register(
                ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                ApiKeys.OFFSET_FOR_LEADER_EPOCH.latestVersion(),
                new OffsetForLeaderEpochHandler(p.topics()));
        invoker.register(
                ApiKeys.DESCRIBE_TOPIC_PARTITIONS,
                ApiKeys.DESCRIBE_TOPIC_PARTITIONS.latestVersion(),
                new DescribeTopicPartitionsHandler(p.topics(), p.nodeFor(), p.leaders()));
        invoker.register(
                ApiKeys.FIND_COORDINATOR,
                ApiKeys.FIND_COORDINATOR.latestVersion(),
                new FindCoordinatorHandler(p.nodeFor(), p.leaders()));
    }
}
