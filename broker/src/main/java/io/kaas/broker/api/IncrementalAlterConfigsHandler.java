package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.TopicConfigChanges;
import io.kaas.broker.group.GroupConfigs;
import io.kaas.broker.telemetry.ClientMetricsSubscriptions;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.server.metrics.ClientMetricsConfigs;

/**
 * IncrementalAlterConfigs (KIP-339) on topics: SET, DELETE, and APPEND/SUBTRACT on list configs such
 * as cleanup.policy, over every topic config Apache defines. See {@link TopicConfigAlterer}. On groups,
 * Apache's group configs ({@link GroupConfigAlterer}); on client-metrics subscriptions, Apache's
 * ClientMetricsConfigs ({@link ClientMetricsAlterer}). On a broker, only
 * clearing the replication throttles {@code kafka-reassign-partitions} clears ({@link ReplicationThrottles}).
 */
public final class IncrementalAlterConfigsHandler implements ApiHandler<IncrementalAlterConfigsRequestData> {
    private final TopicConfigAlterer alterer;
    private final GroupConfigAlterer groups;
    private final ClientMetricsAlterer clientMetrics;

    public IncrementalAlterConfigsHandler(
            TopicCatalog topics, GroupConfigs groupConfigs, ClientMetricsSubscriptions clientMetrics) {
        this.alterer = new TopicConfigAlterer(topics);
        this.groups = new GroupConfigAlterer(groupConfigs);
        this.clientMetrics = new ClientMetricsAlterer(clientMetrics);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, IncrementalAlterConfigsRequestData request) {
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        for (IncrementalAlterConfigsRequestData.AlterConfigsResource res : request.resources()) {
            List<TopicConfigChanges.Operation> ops = res.configs().stream()
                    .map(c -> new TopicConfigChanges.Operation(c.name(), c.configOperation(), c.value()))
                    .toList();
            org.apache.kafka.common.protocol.Errors denied =
                    ctx.configAccess(AclOperation.ALTER_CONFIGS, res.resourceType(), res.resourceName());
            ApiError error = denied != org.apache.kafka.common.protocol.Errors.NONE
                    ? new ApiError(denied, denied.message())
                    : res.resourceType() == org.apache.kafka.common.config.ConfigResource.Type.CLIENT_METRICS.id()
                            ? clientMetrics.alter(
                                    res.resourceName(),
                                    current -> GroupConfigAlterer.apply(
                                            current, groupOps(res), ClientMetricsConfigs::configType),
                                    request.validateOnly())
                            : res.resourceType() == org.apache.kafka.common.config.ConfigResource.Type.GROUP.id()
                                    ? groups.alter(
                                            res.resourceName(),
                                            current -> GroupConfigAlterer.apply(current, groupOps(res)),
                                            request.validateOnly())
                                    : res.resourceType()
                                                            == org.apache.kafka.common.config.ConfigResource.Type.BROKER
                                                                    .id()
                                                    && ReplicationThrottles.onlyThrottles(ops)
                                            ? ReplicationThrottles.answer(ops)
                                            : alterer.alter(
                                                    res.resourceType(),
                                                    res.resourceName(),
                                                    current -> TopicConfigChanges.apply(current, ops),
                                                    request.validateOnly());
            response.responses()
                    .add(new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(res.resourceType())
                            .setResourceName(res.resourceName())
                            .setErrorCode(error.error().code())
                            .setErrorMessage(error.message()));
        }
        return CompletableFuture.completedFuture(response);
    }

    private static List<GroupConfigAlterer.Operation> groupOps(
            IncrementalAlterConfigsRequestData.AlterConfigsResource res) {
        return res.configs().stream()
                .map(c -> new GroupConfigAlterer.Operation(c.name(), c.configOperation(), c.value()))
                .toList();
    }
}
