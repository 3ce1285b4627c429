package io.kaas.broker.api;

import io.kaas.broker.quota.ClientQuotas;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.RequestLevelAuthorization;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

/**
 * AlterClientQuotas ({@code kafka-configs --entity-type users|clients --alter --add-config
 * producer_byte_rate=...}): validated as Apache, written to {@code __cluster/client-quotas.json}, then
 * in force. ALTER_CONFIGS on the cluster is checked before ({@link RequestLevelAuthorization}).
 */
public final class AlterClientQuotasHandler implements ApiHandler<AlterClientQuotasRequestData> {
    private final ClientQuotas quotas;

    public AlterClientQuotasHandler(ClientQuotas quotas) {
        this.quotas = quotas;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, AlterClientQuotasRequestData request) {
        List<ClientQuotas.Alteration> alterations = new ArrayList<>();
        List<String> duplicated = new ArrayList<>();
        for (AlterClientQuotasRequestData.EntryData e : request.entries()) {
            Map<String, String> entity = new HashMap<>();
            for (AlterClientQuotasRequestData.EntityData c : e.entity()) {
                if (entity.containsKey(c.entityType())) {
                    duplicated.add(c.entityType());
                }
                entity.put(c.entityType(), c.entityName());
            }
            alterations.add(new ClientQuotas.Alteration(
                    entity,
                    e.ops().stream()
                            .map(o -> new ClientQuotas.Op(o.key(), o.value(), o.remove()))
                            .toList()));
        }
        AlterClientQuotasResponseData response = new AlterClientQuotasResponseData();
        List<ApiError> results = duplicated.isEmpty() ? quotas.alter(alterations, request.validateOnly()) : null;
        for (int i = 0; i < request.entries().size(); i++) {
            ApiError error = results != null
                    ? results.get(i)
                    : new ApiError(Errors.INVALID_REQUEST, "Duplicate entity type " + duplicated.get(0));
            AlterClientQuotasResponseData.EntryData out = new AlterClientQuotasResponseData.EntryData()
                    .setErrorCode(error.error().code())
                    .setErrorMessage(error.message());
            for (AlterClientQuotasRequestData.EntityData c :
                    request.entries().get(i).entity()) {
                out.entity()
                        .add(new AlterClientQuotasResponseData.EntityData()
                                .setEntityType(c.entityType())
                                .setEntityName(c.entityName()));
            }
            response.entries().add(out);
        }
        return CompletableFuture.completedFuture(response);
    }
}
