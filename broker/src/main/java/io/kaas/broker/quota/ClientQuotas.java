package io.kaas.broker.quota;

import io.kaas.storage.io.FileChangeCheck;
import io.kaas.storage.io.StateFileLock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Quota;
import org.apache.kafka.common.metrics.QuotaViolationException;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.server.config.QuotaConfig;
import org.apache.kafka.server.quota.QuotaUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client quotas as Apache's broker keeps them (KIP-13, KIP-55, KIP-124): values by user and/or client
 * id with {@code <default>}s, persisted in {@link ClientQuotaStore}, matched in Apache's order of
 * precedence, and measured with kafka-clients' own {@link Sensor}/{@link Rate}/{@link Quota} over
 * Apache's window ({@code quota.window.num} samples of {@code quota.window.size.seconds}, {@link Window});
 * the throttle time is Apache's ({@link QuotaUtils#throttleTime}, bounded by one sample for
 * request_percentage as Apache's {@code ClientRequestQuotaManager}). Thread-safe: the quota table is an
 * immutable snapshot swapped on change; sensors are per (type, user, client id) as Apache's metric tags.
 */
public final class ClientQuotas implements AutoCloseable {
    /**
     * Apache's {@code quota.window.num} samples of {@code quota.window.size.seconds} each: the span a
     * rate is measured over (a new client may burst about {@code (samples - 1) × size} seconds' worth).
     */
    public record Window(int samples, int seconds) {
        public static final Window DEFAULT =
                new Window(QuotaConfig.NUM_QUOTA_SAMPLES_DEFAULT, QuotaConfig.QUOTA_WINDOW_SIZE_SECONDS_DEFAULT);

        public Window {
            if (samples < 1 || seconds < 1) {
                throw new IllegalArgumentException("quota window needs at least 1 sample of at least 1 s, got "
                        + samples + " of " + seconds + " s");
            }
        }
    }

    /** Apache's validation of the user/client-id quota keys (names and types). */
    private static final ConfigDef KEYS = QuotaConfig.userAndClientQuotaConfigs();

    private static final Logger LOG = LoggerFactory.getLogger(ClientQuotas.class);

    private final ClientQuotaStore store;
    private final Window window;
    private final Metrics metrics = new Metrics();
    private final Map<String, Sensor> sensors = new ConcurrentHashMap<>();
    private volatile Map<ClientQuotaEntity, Map<String, Double>> quotas;
    /** Whether the file changed since {@link #quotas} was read: another broker of a shared directory altered it. */
    private final FileChangeCheck changes;

    public ClientQuotas(ClientQuotaStore store) {
        this(store, Window.DEFAULT);
    }

    public ClientQuotas(ClientQuotaStore store, Window window) {
        this.store = store;
        this.window = window;
        this.changes = new FileChangeCheck(store.file(), FileChangeCheck.DEFAULT_INTERVAL_NANOS);
        this.quotas = Map.copyOf(store.load());
    }

    /** The quota table, re-read first when the file changed (checked at most once a second). */
    private Map<ClientQuotaEntity, Map<String, Double>> current() {
        if (changes.changed()) {
            reload();
        }
        return quotas;
    }

    private synchronized void reload() {
        Map<ClientQuotaEntity, Map<String, Double>> now;
        try {
            now = Map.copyOf(store.load());
        } catch (RuntimeException e) {
            LOG.warn("{}: not reloaded, the quotas in force stay: {}", store.file(), e.getMessage());
            return;
        }
        swap(now);
    }

    /** Puts {@code next} in force: measuring starts afresh against new limits (Apache updates the sensors' quota in place). */
    private void swap(Map<ClientQuotaEntity, Map<String, Double>> next) {
        if (next.equals(quotas)) {
            return;
        }
        quotas = Map.copyOf(next);
        sensors.keySet().forEach(metrics::removeSensor);
        sensors.clear();
    }

    public Window window() {
        return window;
    }

    /** No quota set anywhere: the request path skips all measuring. */
    public boolean none() {
        return current().isEmpty();
    }

    /** One AlterClientQuotas entry: the entity (type → name, null name = default) and its operations. */
    public record Alteration(Map<String, String> entity, List<Op> ops) {}

    /** Set {@code key} to {@code value}, or remove it. */
    public record Op(String key, double value, boolean remove) {}

    /**
     * Applies the valid alterations (all written at once, then in force) and returns each entry's
     * result in order; with {@code validateOnly} nothing changes.
     */
    public synchronized List<ApiError> alter(List<Alteration> alterations, boolean validateOnly) {
        if (validateOnly) {
            return apply(alterations, new LinkedHashMap<>(current()));
        }
        try (StateFileLock lock = store.lock()) {
            // What the other brokers wrote first: this change is made to the file as it is now.
            swap(store.load());
            Map<ClientQuotaEntity, Map<String, Double>> next = new LinkedHashMap<>(quotas);
            List<ApiError> results = apply(alterations, next);
            if (!next.equals(quotas)) {
                store.save(next);
                swap(next);
            }
            return results;
        }
    }

    /** Applies the valid alterations to {@code next}; one result per alteration, in order. */
    private static List<ApiError> apply(
            List<Alteration> alterations, Map<ClientQuotaEntity, Map<String, Double>> next) {
        List<ApiError> results = new ArrayList<>();
        for (Alteration a : alterations) {
            try {
                ClientQuotaEntity entity = validEntity(a.entity());
                Map<String, Double> values = new HashMap<>(next.getOrDefault(entity, Map.of()));
                for (Op op : a.ops()) {
                    validKey(op);
                    if (op.remove()) {
                        values.remove(op.key());
                    } else {
                        values.put(op.key(), op.value());
                    }
                }
                if (values.isEmpty()) {
                    next.remove(entity);
                } else {
                    next.put(entity, Map.copyOf(values));
                }
                results.add(ApiError.NONE);
            } catch (InvalidRequestException e) {
                results.add(new ApiError(org.apache.kafka.common.protocol.Errors.INVALID_REQUEST, e.getMessage()));
            }
        }
        return results;
    }

    /** Every entity with its values. */
    public Map<ClientQuotaEntity, Map<String, Double>> all() {
        return current();
    }

    /**
     * Records {@code value} for the client and returns how long it must wait (ms; 0 within its quota).
     * The quota and the measuring scope are Apache's: the first of user+client, user+default client,
     * user, default user+client, default user+default client, default user, client, default client
     * that sets this type's key. A request_percentage throttle is at most one sample long (Apache's
     * {@code ClientRequestQuotaManager}); byte rates wait as long as it takes to get back under.
     */
    public long record(QuotaType type, String user, String clientId, double value, long nowMs) {
        Sensor sensor = sensor(type, user, clientId);
        if (sensor == null) {
            return 0;
        }
        try {
            sensor.record(value, nowMs, true);
            return 0;
        } catch (QuotaViolationException e) {
            return type == QuotaType.REQUEST
                    ? QuotaUtils.boundedThrottleTime(e, window.seconds() * 1000L, nowMs)
                    : QuotaUtils.throttleTime(e, nowMs);
        }
    }

    /**
     * Takes back a value {@link #record recorded} for a response that was not sent after all (Apache's
     * {@code unrecordQuotaSensor}: a throttled Fetch answers with no records).
     */
    public void unrecord(QuotaType type, String user, String clientId, double value, long nowMs) {
        Sensor sensor = sensor(type, user, clientId);
        if (sensor != null) {
            sensor.record(-value, nowMs, false);
        }
    }

    /**
     * The most the client may take at once without being throttled even when it took nothing before:
     * its quota × (samples − 1) × sample seconds (Apache's {@code maxValueInQuotaWindow}, which caps a
     * consumer's fetch size); {@link Double#MAX_VALUE} without a quota.
     */
    public double maxValueInWindow(QuotaType type, String user, String clientId) {
        Map<ClientQuotaEntity, Map<String, Double>> q = current();
        Match m = q.isEmpty() ? null : match(q, type.key(), user, clientId);
        return m == null ? Double.MAX_VALUE : m.limit * (window.samples() - 1) * window.seconds();
    }

    /** The client's sensor for {@code type}, or null when no quota applies to it. */
    private Sensor sensor(QuotaType type, String user, String clientId) {
        Map<ClientQuotaEntity, Map<String, Double>> q = current();
        if (q.isEmpty()) {
            return null;
        }
        Match m = match(q, type.key(), user, clientId);
        if (m == null) {
            return null;
        }
        String name = type + ":" + m.userTag + ":" + m.clientTag + ":" + m.limit;
        return sensors.computeIfAbsent(name, n -> {
            Sensor s = metrics.sensor(
                    n,
                    new MetricConfig()
                            .timeWindow(window.seconds(), TimeUnit.SECONDS)
                            .samples(window.samples())
                            .quota(new Quota(m.limit, true)));
            s.add(metrics.metricName(n, "kaas-client-quota"), new Rate());
            return s;
        });
    }

    private record Match(String userTag, String clientTag, double limit) {}

    private static Match match(
            Map<ClientQuotaEntity, Map<String, Double>> q, String key, String user, String clientId) {
        String[][] order = {
            {user, clientId, "uc"}, {user, null, "u+dc"}, {user, "", "u"},
            {null, clientId, "du+c"}, {null, null, "du+dc"}, {null, "", "du"},
            {"", clientId, "c"}, {"", null, "dc"},
        };
        for (String[] level : order) {
            Map<String, String> entries = new HashMap<>();
            // "" = the entity has no such component; null = its <default>.
            if (!"".equals(level[0])) {
                entries.put(ClientQuotaEntity.USER, level[0]);
            }
            if (!"".equals(level[1])) {
                entries.put(ClientQuotaEntity.CLIENT_ID, level[1]);
            }
            Map<String, Double> values = q.get(new ClientQuotaEntity(entries));
            Double limit = values == null ? null : values.get(key);
            if (limit != null) {
                boolean byUser = !"".equals(level[0]);
                boolean byClient = !"".equals(level[1]);
                return new Match(byUser ? user : "", byClient ? clientId : "", limit);
            }
        }
        return null;
    }

    /** Apache's entity rules: user and/or client-id (ip quotas are not kaas's), each at most once. */
    private static ClientQuotaEntity validEntity(Map<String, String> entity) {
        if (entity.isEmpty()) {
            throw new InvalidRequestException("Invalid empty client quota entity");
        }
        for (String type : entity.keySet()) {
            if (!type.equals(ClientQuotaEntity.USER) && !type.equals(ClientQuotaEntity.CLIENT_ID)) {
                throw new InvalidRequestException(
                        type.equals(ClientQuotaEntity.IP)
                                ? "kaas enforces connection limits by ip with max.connections.per.ip, not ip quotas"
                                : "Unhandled client quota entity type: " + type);
            }
        }
        return new ClientQuotaEntity(entity);
    }

    /** Apache's key and value rules; controller_mutation_rate is Apache's but not enforced here, so refused. */
    private static void validKey(Op op) {
        ConfigDef.ConfigKey def = KEYS.configKeys().get(op.key());
        if (def == null) {
            throw new InvalidRequestException("Invalid configuration key " + op.key());
        }
        if (QuotaType.ofKey(op.key()) == null) {
            throw new InvalidRequestException(op.key() + " is not enforced by kaas (no controller); kaas enforces "
                    + QuotaType.PRODUCE.key() + ", " + QuotaType.FETCH.key() + " and " + QuotaType.REQUEST.key());
        }
        if (op.remove()) {
            return;
        }
        if (def.type == ConfigDef.Type.LONG && op.value() != Math.rint(op.value())) {
            throw new InvalidRequestException("Configuration " + op.key() + " must be a Long value");
        }
        if (op.value() <= 0) {
            throw new InvalidRequestException("Configuration " + op.key() + " must be greater than 0");
        }
    }

    @Override
    public void close() {
        metrics.close();
    }
}
