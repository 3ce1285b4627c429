package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.group.GroupConfigs;
import io.kaas.broker.telemetry.ClientMetricsSubscriptions;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiError;

/**
 * The legacy AlterConfigs (API 33, deprecated by KIP-339 but still sent by older tools and
 * Admin.alterConfigs): the request's configs replace the topic's whole set, so a config it does not
 * name goes back to its default. See {@link TopicConfigAlterer}; groups, {@link GroupConfigAlterer};
 * client-metrics subscriptions, {@link ClientMetricsAlterer}.
 */
public final class AlterConfigsHandler implements ApiHandler<AlterConfigsRequestData> {
    private final TopicConfigAlterer alterer;
    private final GroupConfigAlterer groups;
    private final ClientMetricsAlterer clientMetrics;

    public AlterConfigsHandler(
            TopicCatalog topics, GroupConfigs groupConfigs, ClientMetricsSubscriptions clientMetrics) {
        this.alterer = new TopicConfigAlterer(topics);
        this.groups = new GroupConfigAlterer(groupConfigs);
        this.clientMetrics = new ClientMetricsAlterer(clientMetrics);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, AlterConfigsRequestData request) {
        AlterConfigsResponseData response = new AlterConfigsResponseData();
        for (AlterConfigsRequestData.AlterConfigsResource res : request.resources()) {
            Map<String, String> replacement = new LinkedHashMap<>();
            res.configs().forEach(c -> replacement.put(c.name(), c.value()));
            org.apache.kafka.common.protocol.Errors denied =
                    ctx.configAccess(AclOperation.ALTER_CONFIGS, res.resourceType(), res.resourceName());
            ApiError error = denied != org.apache.kafka.common.protocol.Errors.NONE
                    ? new ApiError(denied, denied.message())
                    : res.resourceType() == org.apache.kafka.common.config.ConfigResource.Type.GROUP.id()
                            ? groups.alter(res.resourceName(), current -> replacement, request.validateOnly())
                            : res.resourceType()
                                            == org.apache.kafka.common.config.ConfigResource.Type.CLIENT_METRICS.id()
                                    ? clientMetrics.alter(
                                            res.resourceName(), current -> replacement, request.validateOnly())
                                    : alterer.alter(
                                            res.resourceType(),
                                            res.resourceName(),
                                            current -> replacement,
                                            request.validateOnly());
            response.responses()
                    .add(new AlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(res.resourceType())
                            .setResourceName(res.resourceName())
                            .setErrorCode(error.error().code())
                            .setErrorMessage(error.message()));
        }
        return CompletableFuture.completedFuture(response);
    }
}
