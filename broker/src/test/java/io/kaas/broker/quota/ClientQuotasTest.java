package io.kaas.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.requests.ApiError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Apache's quota precedence, validation and persistence, on {@link ClientQuotas} directly. */
class ClientQuotasTest {
    @TempDir
    Path dir;

    private static Map<String, String> entity(String user, String client, boolean withUser, boolean withClient) {
        Map<String, String> e = new HashMap<>();
        if (withUser) {
            e.put(ClientQuotaEntity.USER, user);
        }
        if (withClient) {
            e.put(ClientQuotaEntity.CLIENT_ID, client);
        }
        return e;
    }

    private static ClientQuotas.Alteration set(Map<String, String> entity, String key, double value) {
        return new ClientQuotas.Alteration(entity, List.of(new ClientQuotas.Op(key, value, false)));
    }

    /** Apache's rate starts over a 10 s window (11 samples of 1 s): bytes beyond limit × 10 are over quota. */
    private static boolean throttled(ClientQuotas q, String user, String client, double limit) {
        long now = 1_000_000;
        long first = q.record(QuotaType.PRODUCE, user, client, limit * 9, now);
        long second = q.record(QuotaType.PRODUCE, user, client, limit * 3, now);
        return first == 0 && second > 0;
    }

    @Test
    void theMostSpecificEntityWinsInApachesOrder() {
        ClientQuotas q = new ClientQuotas(ClientQuotaStore.inDataDir(dir));
        List<ApiError> results = q.alter(
                List.of(
                        set(entity("alice", "app", true, true), "producer_byte_rate", 5000),
                        set(entity(null, null, true, false), "producer_byte_rate", 1000),
                        set(entity(null, "batch", false, true), "producer_byte_rate", 300),
                        set(entity("carol", null, true, true), "consumer_byte_rate", 10)),
                false);
        assertThat(results).allMatch(r -> r.error() == Errors.NONE);
        assertThat(throttled(q, "alice", "app", 5000)).isTrue(); // 1) user + client
        assertThat(throttled(q, "alice", "other", 1000)).isTrue(); // 6) <default> user
        assertThat(throttled(q, "bob", "batch", 1000)).isTrue(); // 6) beats 7) client
        assertThat(throttled(q, "carol", "x", 1000)).isTrue(); // another key's entity does not count
        ClientQuotas onlyClients = new ClientQuotas(ClientQuotaStore.inDataDir(dir.resolve("other")));
        onlyClients.alter(List.of(set(entity(null, "batch", false, true), "producer_byte_rate", 300)), false);
        assertThat(throttled(onlyClients, "bob", "batch", 300)).isTrue(); // 7) client
        assertThat(onlyClients.record(QuotaType.PRODUCE, "bob", "free", 1e12, 1_000_000))
                .isZero();
        // Each user under <default> is measured on its own.
        assertThat(q.record(QuotaType.PRODUCE, "dave", "x", 9000, 2_000_000)).isZero();
        assertThat(q.record(QuotaType.PRODUCE, "erin", "x", 9000, 2_000_000)).isZero();
    }

    @Test
    void quotasPersistAndBadOnesAreRefusedAsApache() {
        ClientQuotas q = new ClientQuotas(ClientQuotaStore.inDataDir(dir));
        List<ApiError> results = q.alter(
                List.of(
                        set(entity("alice", null, true, false), "producer_byte_rate", 1024),
                        set(entity("alice", null, true, false), "no_such_key", 1),
                        set(entity("alice", null, true, false), "producer_byte_rate", 1.5),
                        set(entity("alice", null, true, false), "request_percentage", -1),
                        set(Map.of("ip", "10.0.0.1"), "connection_creation_rate", 5),
                        set(entity(null, null, true, false), "request_percentage", 50.5)),
                false);
        assertThat(results)
                .extracting(ApiError::error)
                .containsExactly(
                        Errors.NONE,
                        Errors.INVALID_REQUEST,
                        Errors.INVALID_REQUEST,
                        Errors.INVALID_REQUEST,
                        Errors.INVALID_REQUEST,
                        Errors.NONE);
        assertThat(results.get(1).message()).contains("Invalid configuration key no_such_key");
        Map<ClientQuotaEntity, Map<String, Double>> reloaded =
                ClientQuotaStore.inDataDir(dir).load();
        assertThat(reloaded)
                .containsEntry(new ClientQuotaEntity(Map.of("user", "alice")), Map.of("producer_byte_rate", 1024.0));
        assertThat(reloaded.get(new ClientQuotaEntity(entity(null, null, true, false))))
                .containsEntry("request_percentage", 50.5);
        // Removing the last key removes the entity.
        q.alter(
                List.of(new ClientQuotas.Alteration(
                        entity("alice", null, true, false),
                        List.of(new ClientQuotas.Op("producer_byte_rate", 0, true)))),
                false);
        assertThat(ClientQuotaStore.inDataDir(dir).load()).hasSize(1);
        q.alter(List.of(set(entity("x", null, true, false), "producer_byte_rate", 1)), true); // validate only
        assertThat(ClientQuotaStore.inDataDir(dir).load()).hasSize(1);
    }

    @Test
    void theWindowIsApachesQuotaWindowNumAndSizeWithApachesChecks() {
        assertThat(io.kaas.broker.security.SecurityConfig.none().quotaWindow()).isEqualTo(ClientQuotas.Window.DEFAULT);
        assertThat(new io.kaas.broker.security.SecurityConfig(
                                Map.of("quota.window.num", "3", "quota.window.size.seconds", "2"))
                        .quotaWindow())
                .isEqualTo(new ClientQuotas.Window(3, 2));
        assertThat(io.kaas.broker.security.SecurityConfig.isSecurityKey("quota.window.num"))
                .isTrue();
        assertThat(io.kaas.broker.security.SecurityConfig.isSecurityKey("quota.window.size.seconds"))
                .isTrue();
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new io.kaas.broker.security.SecurityConfig(Map.of("quota.window.num", "0")).quotaWindow())
                .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
                .hasMessageContaining("quota.window.num");

        // 3 samples of 2 s: a new client may take limit x (3 - 1) x 2 at once, and a request_percentage throttle is at
        // most 2 s.
        ClientQuotas q = new ClientQuotas(ClientQuotaStore.inDataDir(dir), new ClientQuotas.Window(3, 2));
        q.alter(
                List.of(
                        set(entity(null, "c", false, true), "consumer_byte_rate", 100),
                        set(entity(null, "c", false, true), "request_percentage", 1)),
                false);
        assertThat(q.maxValueInWindow(QuotaType.FETCH, "u", "c")).isEqualTo(400);
        assertThat(q.maxValueInWindow(QuotaType.FETCH, "u", "other")).isEqualTo(Double.MAX_VALUE);
        long now = 1_000_000;
        assertThat(q.record(QuotaType.FETCH, "u", "c", 400, now)).isZero();
        assertThat(q.record(QuotaType.FETCH, "u", "c", 400, now)).isPositive();
        q.unrecord(QuotaType.FETCH, "u", "c", 400, now);
        assertThat(q.record(QuotaType.FETCH, "u", "c", 0, now))
                .as("taken back: within quota again")
                .isZero();
        assertThat(q.record(QuotaType.REQUEST, "u", "c", 10_000, now)).isEqualTo(2000);
        q.close();
    }

    /** Two brokers of a shared directory: each sees the other's AlterClientQuotas, and neither's change undoes the other's. */
    @Test
    void twoBrokersOfOneDirectorySeeAndKeepEachOthersQuotas() {
        ClientQuotas one = new ClientQuotas(ClientQuotaStore.inDataDir(dir));
        ClientQuotas other = new ClientQuotas(ClientQuotaStore.inDataDir(dir));
        assertThat(one.alter(List.of(set(entity("alice", null, true, false), "producer_byte_rate", 1000)), false))
                .containsExactly(ApiError.NONE);
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .until(() -> !other.none() && throttled(other, "alice", "any", 1000));
        assertThat(other.alter(List.of(set(entity("bob", null, true, false), "producer_byte_rate", 2000)), false))
                .containsExactly(ApiError.NONE);
        assertThat(other.all()).hasSize(2);
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .until(() -> one.all().size() == 2);
        assertThat(new ClientQuotas(ClientQuotaStore.inDataDir(dir)).all())
                .as("on disk")
                .hasSize(2);
    }
}
