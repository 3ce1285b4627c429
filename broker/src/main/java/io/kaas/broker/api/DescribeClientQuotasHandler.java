package io.kaas.broker.api;

import io.kaas.broker.quota.ClientQuotas;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaEntity;

/**
 * DescribeClientQuotas ({@code kafka-configs --describe --entity-type users|clients}): the entities
 * matching every filter component (exact name, the default, or any specified name), with strict
 * meaning no other entity types, as Apache. DESCRIBE_CONFIGS on the cluster is checked before.
 */
public final class DescribeClientQuotasHandler implements ApiHandler<DescribeClientQuotasRequestData> {
    private static final byte EXACT = 0, DEFAULT = 1, SPECIFIED = 2;

    private final ClientQuotas quotas;

    public DescribeClientQuotasHandler(ClientQuotas quotas) {
        this.quotas = quotas;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeClientQuotasRequestData request) {
        DescribeClientQuotasResponseData response = new DescribeClientQuotasResponseData();
        Set<String> types = new HashSet<>();
        for (DescribeClientQuotasRequestData.ComponentData c : request.components()) {
            if (!types.add(c.entityType()) || c.matchType() < EXACT || c.matchType() > SPECIFIED) {
                return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("Invalid filter component for entity type " + c.entityType()));
            }
        }
        response.setEntries(new java.util.ArrayList<>());
        for (Map.Entry<ClientQuotaEntity, Map<String, Double>> e : quotas.all().entrySet()) {
            Map<String, String> entity = e.getKey().entries();
            if (!matches(request, entity)) {
                continue;
            }
            DescribeClientQuotasResponseData.EntryData out = new DescribeClientQuotasResponseData.EntryData();
            entity.forEach((type, name) -> out.entity()
                    .add(new DescribeClientQuotasResponseData.EntityData()
                            .setEntityType(type)
                            .setEntityName(name)));
            e.getValue()
                    .forEach((k, v) -> out.values()
                            .add(new DescribeClientQuotasResponseData.ValueData()
                                    .setKey(k)
                                    .setValue(v)));
            response.entries().add(out);
        }
        return CompletableFuture.completedFuture(response);
    }

    private static boolean matches(DescribeClientQuotasRequestData request, Map<String, String> entity) {
        if (request.strict() && entity.size() != request.components().size()) {
            return false;
        }
        for (DescribeClientQuotasRequestData.ComponentData c : request.components()) {
            if (!entity.containsKey(c.entityType())) {
                return false;
            }
            String name = entity.get(c.entityType());
            boolean ok = switch (c.matchType()) {
                case EXACT -> Objects.equals(name, c.match());
                case DEFAULT -> name == null;
                default -> name != null;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
