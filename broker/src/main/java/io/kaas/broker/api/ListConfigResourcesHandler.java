package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.group.GroupConfigs;
import io.kaas.broker.telemetry.ClientMetricsSubscriptions;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ListConfigResourcesRequestData;
import org.apache.kafka.common.message.ListConfigResourcesResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListConfigResources (KIP-1142; v0 was ListClientMetricsResources, KIP-714): as Apache 4.4's KafkaApis answers,
 * DESCRIBE_CONFIGS on the cluster is needed; v0 lists the client-metrics subscriptions, v1 the resource types it
 * names (none: all it supports): groups with configs set, client-metrics subscriptions, this broker, and every
 * topic. kaas has no broker-logger configs, so BROKER_LOGGER is not a type it supports: asked for, it answers
 * UNSUPPORTED_VERSION, Apache's answer to a type it does not support.
 */
public final class ListConfigResourcesHandler implements ApiHandler<ListConfigResourcesRequestData> {
    private static final List<Byte> SUPPORTED = List.of(
            ConfigResource.Type.TOPIC.id(),
            ConfigResource.Type.BROKER.id(),
            ConfigResource.Type.CLIENT_METRICS.id(),
            ConfigResource.Type.GROUP.id());

    private final TopicCatalog topics;
    private final GroupConfigs groups;
    private final ClientMetricsSubscriptions clientMetrics;
    private final IntSupplier brokerId;

    public ListConfigResourcesHandler(
            TopicCatalog topics, GroupConfigs groups, ClientMetricsSubscriptions clientMetrics, IntSupplier brokerId) {
        this.topics = topics;
        this.groups = groups;
        this.clientMetrics = clientMetrics;
        this.brokerId = brokerId;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ListConfigResourcesRequestData request) {
        ListConfigResourcesResponseData response = new ListConfigResourcesResponseData();
        if (!ctx.allowedOnCluster(AclOperation.DESCRIBE_CONFIGS)) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code()));
        }
        List<Byte> supported = ctx.apiVersion() == 0 ? List.of(ConfigResource.Type.CLIENT_METRICS.id()) : SUPPORTED;
        List<Byte> types =
                ctx.apiVersion() == 0 || request.resourceTypes().isEmpty() ? supported : request.resourceTypes();
        if (!supported.containsAll(types)) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.UNSUPPORTED_VERSION.code()));
        }
        List<ListConfigResourcesResponseData.ConfigResource> out = new ArrayList<>();
        if (types.contains(ConfigResource.Type.GROUP.id())) {
            add(out, groups.groupIds(), ConfigResource.Type.GROUP);
        }
        if (types.contains(ConfigResource.Type.CLIENT_METRICS.id())) {
            add(out, clientMetrics.names(), ConfigResource.Type.CLIENT_METRICS);
        }
        if (types.contains(ConfigResource.Type.BROKER.id())) {
            add(out, Set.of(Integer.toString(brokerId.getAsInt())), ConfigResource.Type.BROKER);
        }
        if (types.contains(ConfigResource.Type.TOPIC.id())) {
            add(
                    out,
                    topics.topics().stream().map(t -> t.name()).collect(java.util.stream.Collectors.toSet()),
                    ConfigResource.Type.TOPIC);
        }
        return CompletableFuture.completedFuture(response.setConfigResources(out));
    }

    private static void add(
            List<ListConfigResourcesResponseData.ConfigResource> out, Set<String> names, ConfigResource.Type type) {
        for (String name : new TreeSet<>(names)) {
            out.add(new ListConfigResourcesResponseData.ConfigResource()
                    .setResourceName(name)
                    .setResourceType(type.id()));
        }
    }
}
