package io.kaas.broker;

import io.kaas.broker.api.AddOffsetsToTxnHandler;
import io.kaas.broker.api.AddPartitionsToTxnHandler;
import io.kaas.broker.api.AlterClientQuotasHandler;
import io.kaas.broker.api.AlterConfigsHandler;
import io.kaas.broker.api.AlterPartitionReassignmentsHandler;
import io.kaas.broker.api.AlterShareGroupOffsetsHandler;
import io.kaas.broker.api.AlterUserScramCredentialsHandler;
import io.kaas.broker.api.ApiVersionsHandler;
import io.kaas.broker.api.ConsumerGroupDescribeHandler;
import io.kaas.broker.api.ConsumerGroupHeartbeatHandler;
import io.kaas.broker.api.CreateAclsHandler;
import io.kaas.broker.api.CreateDelegationTokenHandler;
import io.kaas.broker.api.CreatePartitionsHandler;
import io.kaas.broker.api.CreateTopicsHandler;
import io.kaas.broker.api.DeleteAclsHandler;
import io.kaas.broker.api.DeleteGroupsHandler;
import io.kaas.broker.api.DeleteRecordsHandler;
import io.kaas.broker.api.DeleteShareGroupOffsetsHandler;
import io.kaas.broker.api.DeleteTopicsHandler;
import io.kaas.broker.api.DescribeAclsHandler;
import io.kaas.broker.api.DescribeClientQuotasHandler;
import io.kaas.broker.api.DescribeClusterHandler;
import io.kaas.broker.api.DescribeConfigsHandler;
import io.kaas.broker.api.DescribeDelegationTokenHandler;
import io.kaas.broker.api.DescribeGroupsHandler;
import io.kaas.broker.api.DescribeLogDirsHandler;
import io.kaas.broker.api.DescribeProducersHandler;
import io.kaas.broker.api.DescribeShareGroupOffsetsHandler;
import io.kaas.broker.api.DescribeTopicPartitionsHandler;
import io.kaas.broker.api.DescribeTransactionsHandler;
import io.kaas.broker.api.DescribeUserScramCredentialsHandler;
import io.kaas.broker.api.ElectLeadersHandler;
import io.kaas.broker.api.EndTxnHandler;
import io.kaas.broker.api.ExpireDelegationTokenHandler;
import io.kaas.broker.api.FetchHandler;
import io.kaas.broker.api.FindCoordinatorHandler;
import io.kaas.broker.api.GetTelemetrySubscriptionsHandler;
import io.kaas.broker.api.HeartbeatHandler;
import io.kaas.broker.api.IncrementalAlterConfigsHandler;
import io.kaas.broker.api.InitProducerIdHandler;
import io.kaas.broker.api.JoinGroupHandler;
import io.kaas.broker.api.LeaveGroupHandler;
import io.kaas.broker.api.ListConfigResourcesHandler;
import io.kaas.broker.api.ListGroupsHandler;
import io.kaas.broker.api.ListOffsetsHandler;
import io.kaas.broker.api.ListPartitionReassignmentsHandler;
import io.kaas.broker.api.ListTransactionsHandler;
import io.kaas.broker.api.MetadataHandler;
import io.kaas.broker.api.OffsetCommitHandler;
import io.kaas.broker.api.OffsetDeleteHandler;
import io.kaas.broker.api.OffsetFetchHandler;
import io.kaas.broker.api.OffsetForLeaderEpochHandler;
import io.kaas.broker.api.ProduceHandler;
import io.kaas.broker.api.PushTelemetryHandler;
import io.kaas.broker.api.RenewDelegationTokenHandler;
import io.kaas.broker.api.SaslAuthenticateHandler;
import io.kaas.broker.api.SaslHandshakeHandler;
import io.kaas.broker.api.ShareAcknowledgeHandler;
import io.kaas.broker.api.ShareFetchHandler;
import io.kaas.broker.api.ShareGroupDescribeHandler;
import io.kaas.broker.api.ShareGroupHeartbeatHandler;
import io.kaas.broker.api.StreamsGroupDescribeHandler;
import io.kaas.broker.api.StreamsGroupHeartbeatHandler;
import io.kaas.broker.api.StreamsGroupTopologyDescriptionUpdateHandler;
import io.kaas.broker.api.SyncGroupHandler;
import io.kaas.broker.api.TxnOffsetCommitHandler;
import io.kaas.broker.api.UpdateFeaturesHandler;
import io.kaas.broker.api.WriteTxnMarkersHandler;
import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.config.TopicConfigView;
import io.kaas.broker.feature.FinalizedFeatures;
import io.kaas.broker.fetch.FetchSessionCache;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.metrics.BrokerMetrics;
import io.kaas.broker.quota.ClientQuotas;
import io.kaas.broker.quota.Throttling;
import io.kaas.broker.security.DelegationTokens;
import io.kaas.broker.security.SaslAuthentication;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.broker.share.ShareFetches;
import io.kaas.broker.share.ShareGroupOffsets;
import io.kaas.broker.share.ShareGroups;
import io.kaas.broker.telemetry.ClientTelemetry;
import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionPeers;
import io.kaas.broker.txn.TransactionalOffsetsGate;
import io.kaas.broker.txn.TransactionalProduceGate;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.cluster.PartitionPins;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.RequestInvoker;
import io.kaas.security.DelegationTokenStore;
import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.layout.ClusterDir;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Which handler serves each API key, and over which of the broker's parts: the one table of the
 * protocol kaas speaks ({@link KaasBroker#start} builds the parts, then calls {@link #registerAll}).
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
        data(invoker, p);
        groups(invoker, p);
        shareGroups(invoker, p);
        security(invoker, p);
        invoker.register(
                ApiKeys.DESCRIBE_CLIENT_QUOTAS,
                ApiKeys.DESCRIBE_CLIENT_QUOTAS.latestVersion(),
                new DescribeClientQuotasHandler(p.quotas()));
        invoker.register(
                ApiKeys.ALTER_CLIENT_QUOTAS,
                ApiKeys.ALTER_CLIENT_QUOTAS.latestVersion(),
                new AlterClientQuotasHandler(p.quotas()));
        invoker.register(
                ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
                ApiKeys.ALTER_PARTITION_REASSIGNMENTS.latestVersion(),
                new AlterPartitionReassignmentsHandler(
                        p.pins(), p.topics(), p.config().brokerId()));
        invoker.register(
                ApiKeys.ELECT_LEADERS,
                ApiKeys.ELECT_LEADERS.latestVersion(),
                new ElectLeadersHandler(p.topics(), p.leaders(), p.nodeFor()));
        invoker.register(
                ApiKeys.LIST_PARTITION_REASSIGNMENTS,
                ApiKeys.LIST_PARTITION_REASSIGNMENTS.latestVersion(),
                new ListPartitionReassignmentsHandler(p.pins()));
    }

    /** Records, topics, configs and transactions. */
    private static void data(RequestInvoker invoker, Parts p) {
        invoker.register(
                ApiKeys.API_VERSIONS,
                ApiKeys.API_VERSIONS.latestVersion(),
                new ApiVersionsHandler(invoker.served(), p.features()));
        invoker.register(
                ApiKeys.UPDATE_FEATURES,
                ApiKeys.UPDATE_FEATURES.latestVersion(),
                new UpdateFeaturesHandler(p.features()));
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
                ApiKeys.INIT_PRODUCER_ID,
                ApiKeys.INIT_PRODUCER_ID.latestVersion(),
                new InitProducerIdHandler(p.producerIds(), p.transactions()));
        invoker.register(
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                AddPartitionsToTxnHandler.MAX_VERSION,
                new AddPartitionsToTxnHandler(p.transactions(), p.topics()));
        invoker.register(
                ApiKeys.ADD_OFFSETS_TO_TXN,
                ApiKeys.ADD_OFFSETS_TO_TXN.latestVersion(),
                new AddOffsetsToTxnHandler(p.transactions()));
        invoker.register(ApiKeys.END_TXN, EndTxnHandler.MAX_VERSION, new EndTxnHandler(p.transactions()));
        invoker.register(
                ApiKeys.TXN_OFFSET_COMMIT,
                TxnOffsetCommitHandler.MAX_VERSION,
                new TxnOffsetCommitHandler(
                        p.groups(), new TransactionalOffsetsGate(p.transactions(), p.transactionPeers()), p.topics()));
        invoker.register(
                ApiKeys.WRITE_TXN_MARKERS,
                ApiKeys.WRITE_TXN_MARKERS.latestVersion(),
                new WriteTxnMarkersHandler(
                        p.topics(), p.transactions().markerWriter(), p.groups(), p.mayAcknowledge()));
        invoker.register(
                ApiKeys.LIST_TRANSACTIONS,
                ApiKeys.LIST_TRANSACTIONS.latestVersion(),
                new ListTransactionsHandler(p.transactions()));
        invoker.register(
                ApiKeys.DESCRIBE_TRANSACTIONS,
                ApiKeys.DESCRIBE_TRANSACTIONS.latestVersion(),
                new DescribeTransactionsHandler(p.transactions()));
        invoker.register(
                ApiKeys.DESCRIBE_PRODUCERS,
                ApiKeys.DESCRIBE_PRODUCERS.latestVersion(),
                new DescribeProducersHandler(p.topics()));
        invoker.register(
                ApiKeys.CREATE_TOPICS,
                ApiKeys.CREATE_TOPICS.latestVersion(),
                new CreateTopicsHandler(p.topics(), p.topicConfigs(), p.config().brokerId()));
        invoker.register(
                ApiKeys.DELETE_TOPICS, ApiKeys.DELETE_TOPICS.latestVersion(), new DeleteTopicsHandler(p.topics()));
        invoker.register(
                ApiKeys.CREATE_PARTITIONS,
                ApiKeys.CREATE_PARTITIONS.latestVersion(),
                new CreatePartitionsHandler(p.topics()));
        invoker.register(
                ApiKeys.DELETE_RECORDS, ApiKeys.DELETE_RECORDS.latestVersion(), new DeleteRecordsHandler(p.topics()));
        invoker.register(
                ApiKeys.DESCRIBE_CONFIGS,
                ApiKeys.DESCRIBE_CONFIGS.latestVersion(),
                new DescribeConfigsHandler(
                        p.topics(),
                        p.topicConfigs(),
                        p.config(),
                        p.groups().configs(),
                        p.telemetry().subscriptions()));
        invoker.register(
                ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                ApiKeys.INCREMENTAL_ALTER_CONFIGS.latestVersion(),
                new IncrementalAlterConfigsHandler(
                        p.topics(), p.groups().configs(), p.telemetry().subscriptions()));
        invoker.register(
                ApiKeys.LIST_CONFIG_RESOURCES,
                ApiKeys.LIST_CONFIG_RESOURCES.latestVersion(),
                new ListConfigResourcesHandler(
                        p.topics(), p.groups().configs(), p.telemetry().subscriptions(), p.config()::brokerId));
        invoker.register(
                ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS,
                ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS.latestVersion(),
                new GetTelemetrySubscriptionsHandler(p.telemetry()));
        invoker.register(
                ApiKeys.PUSH_TELEMETRY,
                ApiKeys.PUSH_TELEMETRY.latestVersion(),
                new PushTelemetryHandler(p.telemetry()));
        invoker.register(
                ApiKeys.ALTER_CONFIGS,
                ApiKeys.ALTER_CONFIGS.latestVersion(),
                new AlterConfigsHandler(
                        p.topics(), p.groups().configs(), p.telemetry().subscriptions()));
        invoker.register(
                ApiKeys.DESCRIBE_CLUSTER,
                ApiKeys.DESCRIBE_CLUSTER.latestVersion(),
                new DescribeClusterHandler(p.nodeFor(), p.leaders()));
        invoker.register(
                ApiKeys.DESCRIBE_LOG_DIRS,
                ApiKeys.DESCRIBE_LOG_DIRS.latestVersion(),
                new DescribeLogDirsHandler(p.topics()));
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

    /** Consumer groups (classic and KIP-848) and their offsets. */
    private static void groups(RequestInvoker invoker, Parts p) {
        invoker.register(
                ApiKeys.JOIN_GROUP, ApiKeys.JOIN_GROUP.latestVersion(), new JoinGroupHandler(p.groups(), p.shares()));
        invoker.register(ApiKeys.SYNC_GROUP, ApiKeys.SYNC_GROUP.latestVersion(), new SyncGroupHandler(p.groups()));
        invoker.register(ApiKeys.HEARTBEAT, ApiKeys.HEARTBEAT.latestVersion(), new HeartbeatHandler(p.groups()));
        invoker.register(ApiKeys.LEAVE_GROUP, ApiKeys.LEAVE_GROUP.latestVersion(), new LeaveGroupHandler(p.groups()));
        invoker.register(
                ApiKeys.OFFSET_COMMIT,
                OffsetCommitHandler.MAX_VERSION,
                new OffsetCommitHandler(p.groups(), p.topics()));
        invoker.register(
                ApiKeys.OFFSET_FETCH, OffsetFetchHandler.MAX_VERSION, new OffsetFetchHandler(p.groups(), p.topics()));
        invoker.register(
                ApiKeys.LIST_GROUPS,
                ApiKeys.LIST_GROUPS.latestVersion(),
                new ListGroupsHandler(p.groups(), p.shares()));
        invoker.register(
                ApiKeys.DESCRIBE_GROUPS,
                ApiKeys.DESCRIBE_GROUPS.latestVersion(),
                new DescribeGroupsHandler(p.groups()));
        invoker.register(
                ApiKeys.DELETE_GROUPS,
                ApiKeys.DELETE_GROUPS.latestVersion(),
                new DeleteGroupsHandler(p.groups(), p.shares()));
        invoker.register(
                ApiKeys.OFFSET_DELETE, ApiKeys.OFFSET_DELETE.latestVersion(), new OffsetDeleteHandler(p.groups()));
        invoker.register(
                ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                ApiKeys.CONSUMER_GROUP_HEARTBEAT.latestVersion(),
                new ConsumerGroupHeartbeatHandler(p.groups(), p.shares()));
        invoker.register(
                ApiKeys.CONSUMER_GROUP_DESCRIBE,
                ApiKeys.CONSUMER_GROUP_DESCRIBE.latestVersion(),
                new ConsumerGroupDescribeHandler(p.groups()));
        invoker.register(
                ApiKeys.STREAMS_GROUP_HEARTBEAT,
                ApiKeys.STREAMS_GROUP_HEARTBEAT.latestVersion(),
                new StreamsGroupHeartbeatHandler(p.groups(), p.topics(), p.shares()));
        invoker.register(
                ApiKeys.STREAMS_GROUP_DESCRIBE,
                ApiKeys.STREAMS_GROUP_DESCRIBE.latestVersion(),
                new StreamsGroupDescribeHandler(p.groups()));
        invoker.register(
                ApiKeys.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE,
                ApiKeys.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE.latestVersion(),
                new StreamsGroupTopologyDescriptionUpdateHandler(p.groups()));
    }

    /** Share groups (KIP-932): heartbeat, describe, fetch, acknowledge and the share-group offset APIs. */
    private static void shareGroups(RequestInvoker invoker, Parts p) {
        ShareFetches fetches = new ShareFetches(p.shares(), p.topics());
        invoker.register(
                ApiKeys.SHARE_GROUP_HEARTBEAT,
                ApiKeys.SHARE_GROUP_HEARTBEAT.latestVersion(),
                new ShareGroupHeartbeatHandler(p.shares(), p.groups()));
        invoker.register(
                ApiKeys.SHARE_GROUP_DESCRIBE,
                ApiKeys.SHARE_GROUP_DESCRIBE.latestVersion(),
                new ShareGroupDescribeHandler(p.shares(), p.groups()));
        invoker.register(
                ApiKeys.SHARE_FETCH,
                ApiKeys.SHARE_FETCH.latestVersion(),
                new ShareFetchHandler(fetches, p.timer(), p.handlerPool()));
        invoker.register(
                ApiKeys.SHARE_ACKNOWLEDGE,
                ApiKeys.SHARE_ACKNOWLEDGE.latestVersion(),
                new ShareAcknowledgeHandler(fetches));
        ShareGroupOffsets offsets = new ShareGroupOffsets(p.shares(), p.topics());
        invoker.register(
                ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS,
                ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS.latestVersion(),
                new DescribeShareGroupOffsetsHandler(offsets, p.topics()));
        invoker.register(
                ApiKeys.ALTER_SHARE_GROUP_OFFSETS,
                ApiKeys.ALTER_SHARE_GROUP_OFFSETS.latestVersion(),
                new AlterShareGroupOffsetsHandler(offsets, p.topics()));
        invoker.register(
                ApiKeys.DELETE_SHARE_GROUP_OFFSETS,
                ApiKeys.DELETE_SHARE_GROUP_OFFSETS.latestVersion(),
                new DeleteShareGroupOffsetsHandler(offsets, p.topics()));
    }

    /**
     * SaslHandshake/SaslAuthenticate (served even without a SASL listener, as Apache does; there they
     * answer ILLEGAL_SASL_STATE), the SCRAM credential APIs over {@code __cluster/credentials.json}, and the ACL APIs.
     */
    private static void security(RequestInvoker invoker, Parts p) {
        ScramCredentialStore credentials = new ScramCredentialStore(ClusterDir.credentials(p.clusterDir()));
        DelegationTokens tokens = delegationTokens(invoker, p);
        SaslAuthentication sasl =
                new SaslAuthentication(credentials, tokens, p.security().acceptLegacyScramNonce());
        invoker.register(
                ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_HANDSHAKE.latestVersion(), new SaslHandshakeHandler(sasl));
        invoker.register(
                ApiKeys.SASL_AUTHENTICATE,
                ApiKeys.SASL_AUTHENTICATE.latestVersion(),
                new SaslAuthenticateHandler(sasl));
        invoker.register(
                ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS,
                ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS.latestVersion(),
                new DescribeUserScramCredentialsHandler(credentials));
        invoker.register(ApiKeys.DESCRIBE_ACLS, ApiKeys.DESCRIBE_ACLS.latestVersion(), new DescribeAclsHandler());
        invoker.register(ApiKeys.CREATE_ACLS, ApiKeys.CREATE_ACLS.latestVersion(), new CreateAclsHandler());
        invoker.register(ApiKeys.DELETE_ACLS, ApiKeys.DELETE_ACLS.latestVersion(), new DeleteAclsHandler());
        invoker.register(
                ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
                ApiKeys.ALTER_USER_SCRAM_CREDENTIALS.latestVersion(),
                new AlterUserScramCredentialsHandler(credentials, p.security().superUsers()));
    }

    /**
     * The delegation-token APIs over {@code __cluster/delegation-tokens.json}, and the sweep that deletes expired
     * tokens every {@code delegation.token.expiry.check.interval.ms} on the broker's timer (stopped with it).
     */
    private static DelegationTokens delegationTokens(RequestInvoker invoker, Parts p) {
        DelegationTokens tokens = new DelegationTokens(
                p.security().delegationTokenSettings(),
                new DelegationTokenStore(ClusterDir.delegationTokens(p.clusterDir())),
                System::currentTimeMillis);
        invoker.register(
                ApiKeys.CREATE_DELEGATION_TOKEN,
                ApiKeys.CREATE_DELEGATION_TOKEN.latestVersion(),
                new CreateDelegationTokenHandler(tokens));
        invoker.register(
                ApiKeys.RENEW_DELEGATION_TOKEN,
                ApiKeys.RENEW_DELEGATION_TOKEN.latestVersion(),
                new RenewDelegationTokenHandler(tokens));
        invoker.register(
                ApiKeys.EXPIRE_DELEGATION_TOKEN,
                ApiKeys.EXPIRE_DELEGATION_TOKEN.latestVersion(),
                new ExpireDelegationTokenHandler(tokens));
        invoker.register(
                ApiKeys.DESCRIBE_DELEGATION_TOKEN,
                ApiKeys.DESCRIBE_DELEGATION_TOKEN.latestVersion(),
                new DescribeDelegationTokenHandler(tokens));
        if (tokens.enabled()) {
            long every = tokens.sweepIntervalMs();
            p.timer().scheduleWithFixedDelay(() -> sweep(tokens), every, every, TimeUnit.MILLISECONDS);
        }
        return tokens;
    }

    private static void sweep(DelegationTokens tokens) {
        try {
            tokens.sweep();
        } catch (RuntimeException e) {
            // A disk fault: logged, and the next sweep tries again (expired tokens cannot log in meanwhile).
            org.slf4j.LoggerFactory.getLogger(ApiHandlers.class)
                    .warn("delegation token sweep failed: {}", e.getMessage());
        }
    }
}
