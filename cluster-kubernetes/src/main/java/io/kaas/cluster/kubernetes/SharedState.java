package io.kaas.cluster.kubernetes;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.cluster.Assignment;
import io.kaas.cluster.CoordinationException;
import io.kaas.storage.TopicPartition;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Everything the brokers of one cluster agree on besides the leases themselves, as one JSON document in one
 * ConfigMap key: written only by compare-and-set on the ConfigMap's resourceVersion, so a change is made
 * against exactly the state it was computed from. {@code revision} counts the writes, like etcd's revision:
 * the version of the assignment or of an epoch is the revision that last wrote it (0: never written).
 * Entries "under a lease" (brokers, holders) name it and count only while it lives; a dead one's entries
 * are dropped at the next write. Mutable, but only ever within one compare-and-set attempt.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
final class SharedState {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A live broker's registration, under {@code lease}. */
    record Member(
            @JsonProperty("host") String host,
            @JsonProperty("port") int port,
            @JsonProperty("lease") long lease,
            @JsonProperty("endpoints") java.util.List<String> endpoints) {}

    /** A partition's leader epoch and the revision that wrote it. */
    record Epoch(
            @JsonProperty("epoch") int epoch,
            @JsonProperty("version") long version) {}

    /** The broker that has a partition open, under {@code lease}. */
    record Holder(
            @JsonProperty("broker") int broker,
            @JsonProperty("lease") long lease) {}

    @JsonProperty
    long revision;

    @JsonProperty
    Map<Integer, Member> brokers = new TreeMap<>();

    @JsonProperty
    Assignment assignment = Assignment.EMPTY;

    @JsonProperty
    long assignmentVersion;

    @JsonProperty
    Map<String, Integer> topics = new TreeMap<>();

    @JsonProperty
    Map<String, Epoch> epochs = new TreeMap<>();

    @JsonProperty
    Map<String, Holder> holders = new TreeMap<>();

    @JsonProperty
    long nextProducerId;

    /** The version a write made now gets. */
    long nextRevision() {
        return ++revision;
    }

    /** Drops the entries of leases not in {@code live}. */
    void forgetDeadLeases(Set<Long> live) {
        brokers.values().removeIf(m -> !live.contains(m.lease()));
        holders.values().removeIf(h -> !live.contains(h.lease()));
    }

    static String key(TopicPartition tp) {
        return tp.topic() + "/" + tp.partition();
    }

    static SharedState parse(String json, String where) {
        if (json == null || json.isBlank()) {
            return new SharedState();
        }
        try {
            return JSON.readValue(json, SharedState.class);
        } catch (JsonProcessingException e) {
            throw new CoordinationException(where + " holds a value kaas cannot read: " + e.getOriginalMessage(), e);
        }
    }

    String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
