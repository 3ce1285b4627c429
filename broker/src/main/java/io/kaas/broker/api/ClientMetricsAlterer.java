package io.kaas.broker.api;

import io.kaas.broker.telemetry.ClientMetricsSubscriptions;
import io.kaas.protocol.ErrorMapping;
import io.kaas.storage.io.StorageException;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

/**
 * The alter step of IncrementalAlterConfigs for a CLIENT_METRICS resource (KIP-714): the subscription's new set of
 * configs, validated by Apache's ClientMetricsConfigs, whose exception is the answer (INVALID_REQUEST for an empty
 * name, an unknown config or an interval out of range, INVALID_CONFIG for a bad match pattern), written durably
 * unless validate_only.
 */
final class ClientMetricsAlterer {
    private final ClientMetricsSubscriptions subscriptions;

    ClientMetricsAlterer(ClientMetricsSubscriptions subscriptions) {
        this.subscriptions = subscriptions;
    }

    ApiError alter(String name, UnaryOperator<Map<String, String>> change, boolean validateOnly) {
        try {
            subscriptions.alter(name, change, validateOnly);
            return ApiError.NONE;
        } catch (ApiException e) {
            return new ApiError(Errors.forException(e), e.getMessage());
        } catch (IllegalArgumentException e) {
            return new ApiError(Errors.INVALID_CONFIG, e.getMessage());
        } catch (StorageException e) {
            return new ApiError(ErrorMapping.toKafka(e.kind()), e.getMessage());
        }
    }
}
