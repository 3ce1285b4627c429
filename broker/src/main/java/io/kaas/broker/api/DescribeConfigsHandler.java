package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.ApacheTopicConfigs;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.config.BrokerConfigView;
import io.kaas.broker.config.TopicConfigView;
import io.kaas.broker.group.ApacheGroupConfigs;
import io.kaas.broker.group.GroupConfigs;
import io.kaas.broker.telemetry.ClientMetricsSubscriptions;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.TopicInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.server.metrics.ClientMetricsConfigs;

/**
 * DescribeConfigs for TOPIC (every config Apache's LogConfig defines, with source, synonyms and
 * documentation as Apache reports them; see {@link TopicConfigView}) and BROKER (this broker's
 * settings over Apache's log defaults, read-only; see {@link BrokerConfigView}) and GROUP (Apache's
 * group configs, see {@link ApacheGroupConfigs}) and CLIENT_METRICS (a subscription's set configs, KIP-714).
 * Other resource types
 * are INVALID_REQUEST.
 */
public final class DescribeConfigsHandler implements ApiHandler<DescribeConfigsRequestData> {
    private final TopicCatalog topics;
    private final TopicConfigView topicConfigs;
    private final BrokerConfig broker;
    private final GroupConfigs groupConfigs;
    private final ClientMetricsSubscriptions clientMetrics;

    public DescribeConfigsHandler(
            TopicCatalog topics,
            TopicConfigView topicConfigs,
            BrokerConfig broker,
            GroupConfigs groupConfigs,
            ClientMetricsSubscriptions clientMetrics) {
        this.topics = topics;
        this.topicConfigs = topicConfigs;
        this.broker = broker;
        this.groupConfigs = groupConfigs;
        this.clientMetrics = clientMetrics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeConfigsRequestData request) {
        DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        for (DescribeConfigsRequestData.DescribeConfigsResource res : request.resources()) {
            DescribeConfigsResponseData.DescribeConfigsResult r =
                    new DescribeConfigsResponseData.DescribeConfigsResult()
                            .setResourceType(res.resourceType())
                            .setResourceName(res.resourceName());
            response.results().add(r);
            List<String> keys = res.configurationKeys();
            ConfigResource.Type type = ConfigResource.Type.forId(res.resourceType());
            Errors denied = ctx.configAccess(AclOperation.DESCRIBE_CONFIGS, res.resourceType(), res.resourceName());
            if (denied != Errors.NONE) {
                r.setErrorCode(denied.code()).setErrorMessage(denied.message());
                continue;
            }
            if (type == ConfigResource.Type.TOPIC) {
                Optional<TopicInfo> topic = topics.topic(res.resourceName());
                if (topic.isEmpty()) {
                    r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .setErrorMessage("topic '" + res.resourceName() + "' does not exist");
                    continue;
                }
                for (TopicConfigView.Entry e :
                        topicConfigs.effective(topic.get().config()).values()) {
                    if (keys == null || keys.contains(e.name())) {
                        r.configs().add(topicEntry(e, request.includeSynonyms(), request.includeDocumentation()));
                    }
                }
            } else if (type == ConfigResource.Type.BROKER) {
                if (!res.resourceName().isEmpty() && !res.resourceName().equals(Integer.toString(broker.brokerId()))) {
                    r.setErrorCode(Errors.INVALID_REQUEST.code())
                            .setErrorMessage("this is broker " + broker.brokerId() + ", not " + res.resourceName());
                    continue;
                }
                for (BrokerConfigView.Entry e : BrokerConfigView.of(broker).values()) {
                    if (keys == null || keys.contains(e.name())) {
                        r.configs().add(brokerEntry(e, request.includeSynonyms()));
                    }
                }
            } else if (type == ConfigResource.Type.GROUP) {
                if (res.resourceName().isEmpty()) {
                    r.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("Group name must not be empty");
                    continue;
                }
                for (ApacheGroupConfigs.Entry e :
                        groupConfigs.apache().describe(groupConfigs.overrides(res.resourceName()))) {
                    if (keys == null || keys.contains(e.name())) {
                        r.configs().add(groupEntry(e, request.includeSynonyms(), request.includeDocumentation()));
                    }
                }
            } else if (type == ConfigResource.Type.CLIENT_METRICS) {
                // Apache's ConfigHelper: only the subscription's set configs, each CLIENT_METRICS_CONFIG, no synonyms;
                // a subscription that does not exist has none.
                if (res.resourceName() == null || res.resourceName().isEmpty()) {
                    r.setErrorCode(Errors.INVALID_REQUEST.code())
                            .setErrorMessage("Client metrics subscription name must not be empty");
                    continue;
                }
                clientMetrics.configs(res.resourceName()).forEach((name, value) -> {
                    if (keys == null || keys.contains(name)) {
                        r.configs()
                                .add(new DescribeConfigsResponseData.DescribeConfigsResourceResult()
                                        .setName(name)
                                        .setValue(value)
                                        .setReadOnly(false)
                                        .setConfigSource(
                                                DescribeConfigsResponse.ConfigSource.CLIENT_METRICS_CONFIG.id())
                                        .setIsSensitive(false)
                                        .setConfigType(configType(ClientMetricsConfigs.configType(name)))
                                        .setSynonyms(new ArrayList<>()));
                    }
                });
            } else {
                r.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("resource type " + type + " has no configs here");
            }
        }
        return CompletableFuture.completedFuture(response);
    }

    private static byte configType(Optional<org.apache.kafka.common.config.ConfigDef.Type> type) {
        return type.map(ApacheTopicConfigs::wireType).orElse(DescribeConfigsResponse.ConfigType.UNKNOWN.id());
    }

    private static DescribeConfigsResponseData.DescribeConfigsResourceResult topicEntry(
            TopicConfigView.Entry e, boolean synonyms, boolean documentation) {
        DescribeConfigsResponseData.DescribeConfigsResourceResult out =
                new DescribeConfigsResponseData.DescribeConfigsResourceResult()
                        .setName(e.name())
                        .setValue(e.value())
                        .setReadOnly(false)
                        .setConfigSource(e.source())
                        .setIsSensitive(false)
                        .setConfigType(e.type())
                        .setSynonyms(new ArrayList<>())
                        .setDocumentation(documentation ? e.documentation() : null);
        if (synonyms) {
            for (TopicConfigView.Synonym s : e.synonyms()) {
                out.synonyms()
                        .add(new DescribeConfigsResponseData.DescribeConfigsSynonym()
                                .setName(s.name())
                                .setValue(s.value())
                                .setSource(s.source()));
            }
        }
        return out;
    }

    /** A group config entry has a topic config entry's shape: reported the same way. */
    private static DescribeConfigsResponseData.DescribeConfigsResourceResult groupEntry(
            ApacheGroupConfigs.Entry e, boolean synonyms, boolean documentation) {
        return topicEntry(
                new TopicConfigView.Entry(
                        e.name(),
                        e.value(),
                        e.source(),
                        e.type(),
                        e.synonyms().stream()
                                .map(s -> new TopicConfigView.Synonym(s.name(), s.value(), s.source()))
                                .toList(),
                        e.documentation()),
                synonyms,
                documentation);
    }

    private static DescribeConfigsResponseData.DescribeConfigsResourceResult brokerEntry(
            BrokerConfigView.Entry e, boolean synonyms) {
        DescribeConfigsResponseData.DescribeConfigsResourceResult out =
                new DescribeConfigsResponseData.DescribeConfigsResourceResult()
                        .setName(e.name())
                        .setValue(e.value())
                        .setReadOnly(true)
                        .setConfigSource(e.source())
                        .setIsSensitive(false)
                        .setConfigType(e.type())
                        .setSynonyms(new ArrayList<>());
        if (synonyms) {
            out.synonyms()
                    .add(new DescribeConfigsResponseData.DescribeConfigsSynonym()
                            .setName(e.name())
                            .setValue(e.value())
                            .setSource(e.source()));
        }
        return out;
    }
}
