package io.kaas.broker;

import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.config.TopicConfigView;
import io.kaas.broker.feature.FinalizedFeatures;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.metrics.BrokerMetrics;
import io.kaas.broker.quota.ClientQuotas;
import io.kaas.broker.quota.Throttling;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.broker.share.ShareGroups;
import io.kaas.broker.telemetry.ClientTelemetry;
import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionPeers;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.cluster.PartitionPins;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.RequestInvoker;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Which handler serves each API key, and over which of the broker's parts: the table of the protocol kaas speaks,
 * one class per job ({@link ClientDataApis}, {@link TransactionApis}, {@link AdminApis}, {@link GroupApis},
 * {@link SecurityApis}). {@link KaasBroker#start} builds the parts, then calls {@link #registerAll}; what is
 * registered is what ApiVersions advertises.
 */
final class ApiHandlers {
    private ApiHandlers() {}

    /**
     * What the handlers are built over.
     *
     * @param leaders        each partition's and coordinator slot's broker ({@link PartitionLeaders#single()} alone)
     * @param mayAcknowledge false while this broker's self-fence holds (always true alone)
     * @param nodeFor        this broker as the client's listener advertises it
     * @param pins           the operator's pins (kafka-reassign-partitions), null alone
     * @param features       the finalized feature levels (ApiVersions, UpdateFeatures)
     * @param telemetry      client-metrics subscriptions and pushed client metrics (KIP-714)
     */
    record Parts(
            BrokerConfig config,
            SecurityConfig security,
            BrokerMetrics metrics,
            TopicCatalog topics,
            TopicConfigView topicConfigs,
            ProducerIdAllocator producerIds,
            Throttling throttling,
            ClientQuotas quotas,
            TransactionCoordinator transactions,
            TransactionPeers transactionPeers,
            GroupCoordinator groups,
            ShareGroups shares,
            PartitionLeaders leaders,
            BooleanSupplier mayAcknowledge,
            Function<RequestContext, BrokerNode> nodeFor,
            ScheduledExecutorService timer,
            ExecutorService handlerPool,
            PartitionPins pins,
            Path clusterDir,
            FinalizedFeatures features,
            ClientTelemetry telemetry) {}

    static void registerAll(RequestInvoker invoker, Parts p) {
        ClientDataApis.register(invoker, p);
        TransactionApis.register(invoker, p);
        AdminApis.register(invoker, p);
        GroupApis.register(invoker, p);
        SecurityApis.register(invoker, p);
    }
}
