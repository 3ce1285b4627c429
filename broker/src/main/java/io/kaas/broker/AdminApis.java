package io.kaas.broker;

import io.kaas.broker.api.AlterClientQuotasHandler;
import io.kaas.broker.api.AlterConfigsHandler;
import io.kaas.broker.api.AlterPartitionReassignmentsHandler;
import io.kaas.broker.api.AlterReplicaLogDirsHandler;
import io.kaas.broker.api.CreatePartitionsHandler;
import io.kaas.broker.api.CreateTopicsHandler;
import io.kaas.broker.api.DeleteTopicsHandler;
import io.kaas.broker.api.DescribeClientQuotasHandler;
import io.kaas.broker.api.DescribeConfigsHandler;
import io.kaas.broker.api.DescribeLogDirsHandler;
import io.kaas.broker.api.ElectLeadersHandler;
import io.kaas.broker.api.GetTelemetrySubscriptionsHandler;
import io.kaas.broker.api.IncrementalAlterConfigsHandler;
import io.kaas.broker.api.ListConfigResourcesHandler;
import io.kaas.broker.api.ListPartitionReassignmentsHandler;
import io.kaas.broker.api.PushTelemetryHandler;
import io.kaas.broker.api.UpdateFeaturesHandler;
import io.kaas.protocol.RequestInvoker;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The admin client's APIs: topics and partitions, configs of every resource type, features, client telemetry,
 * log dirs, quotas, reassignments and leader elections.
 */
final class AdminApis {
    private AdminApis() {}

    /** Registers them on {@code invoker}. */
    static void register(RequestInvoker invoker, ApiHandlers.Parts p) {
        invoker.register(
                ApiKeys.UPDATE_FEATURES,
                ApiKeys.UPDATE_FEATURES.latestVersion(),
                new UpdateFeaturesHandler(p.features()));
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
                ApiKeys.DESCRIBE_LOG_DIRS,
                ApiKeys.DESCRIBE_LOG_DIRS.latestVersion(),
                new DescribeLogDirsHandler(p.topics()));
        invoker.register(
                ApiKeys.ALTER_REPLICA_LOG_DIRS,
                ApiKeys.ALTER_REPLICA_LOG_DIRS.latestVersion(),
                new AlterReplicaLogDirsHandler(p.topics()));
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
}
