package io.kaas.broker.quota;

import org.apache.kafka.server.config.QuotaConfig;

/** The client quotas kaas enforces, by Apache's config key (KIP-13, KIP-124). */
public enum QuotaType {
    /** Bytes per second of Produce requests. */
    PRODUCE(QuotaConfig.PRODUCER_BYTE_RATE_OVERRIDE_CONFIG),
    /** Bytes per second of Fetch responses. */
    FETCH(QuotaConfig.CONSUMER_BYTE_RATE_OVERRIDE_CONFIG),
    /** Request-handler time, in percent of one thread (KIP-124). */
    REQUEST(QuotaConfig.REQUEST_PERCENTAGE_OVERRIDE_CONFIG);

    private final String key;

    QuotaType(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    public static QuotaType ofKey(String key) {
        for (QuotaType t : values()) {
            if (t.key.equals(key)) {
                return t;
            }
        }
        return null;
    }
}
