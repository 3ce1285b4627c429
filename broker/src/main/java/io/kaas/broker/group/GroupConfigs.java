package io.kaas.broker.group;

import io.kaas.broker.group.streams.StreamsGroupConfig;
import io.kaas.storage.format.SharedStateFile;
import io.kaas.storage.io.StateFileLock;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.kafka.coordinator.group.GroupConfig;

/**
 * The configs set on groups (ConfigResource GROUP), durable in {@code <data>/__cluster/group-configs.json}
 * and the lookup the group coordinators read ({@link #of}). A change is validated as Apache does
 * ({@link ApacheGroupConfigs}) and written atomically (fsynced) before it is answered, under the file's
 * {@link StateFileLock} from the read to the write, so that brokers sharing the directory lose no change, and
 * each broker sees the others' changes within a second ({@link SharedStateFile#recent}).
 * A group needs not exist to have configs, as in Apache.
 */
public final class GroupConfigs {
    /** The file's shape: each group's set configs by Apache's names. */
    public record GroupConfigsFile(int version, Map<String, Map<String, String>> groups) {
        public GroupConfigsFile {
            groups = java.util.Collections.unmodifiableMap(groups == null ? new TreeMap<>() : new TreeMap<>(groups));
        }
    }

    private final SharedStateFile<GroupConfigsFile> file;
    private final ApacheGroupConfigs apache;
    /** The effective configs of a group with none of its own. */
    private final GroupConfig defaults;

    private final Object lock = new Object();
    // Guarded by lock: the file version the parsed configs come from.
    private GroupConfigsFile parsedFrom;
    /**
     * Guarded by lock: effective configs of groups that have their own, parsed once per file version (the protocols
     * read them at every heartbeat). Only groups with configs are here, so it is as bounded as the file.
     */
    private final Map<String, GroupConfig> parsed = new HashMap<>();

    public GroupConfigs(Path file, ApacheGroupConfigs apache) {
        this.file = SharedStateFile.of(file, GroupConfigsFile.class, new GroupConfigsFile(1, Map.of()));
        this.apache = apache;
        this.defaults = apache.effective(Map.of());
    }

    public ApacheGroupConfigs apache() {
        return apache;
    }

    /** The configs set on {@code groupId} (empty when none), as the file holds them (at most a second old). */
    public Map<String, String> overrides(String groupId) {
        return file.recent().groups().getOrDefault(groupId, Map.of());
    }

    /** The groups with configs set (ListConfigResources). */
    public java.util.Set<String> groupIds() {
        return java.util.Set.copyOf(file.recent().groups().keySet());
    }

    /** {@code groupId}'s effective configs: its own over the broker's defaults. */
    public GroupConfig of(String groupId) {
        GroupConfigsFile f = file.recent();
        Map<String, String> own = f.groups().getOrDefault(groupId, Map.of());
        if (own.isEmpty()) {
            return defaults;
        }
        synchronized (lock) {
            if (f != parsedFrom) {
                parsed.clear();
                parsedFrom = f;
            }
            return parsed.computeIfAbsent(groupId, id -> apache.effective(own));
        }
    }
    /**
     * The consumer-protocol settings of {@code groupId}: its {@code consumer.session.timeout.ms} and
     * {@code consumer.heartbeat.interval.ms} over the broker's. Read at every heartbeat, as Apache's
     * {@code GroupMetadataManager} does, so a change applies from a member's next heartbeat.
     */
    public ConsumerGroupConfig consumer(String groupId, ConsumerGroupConfig broker) {
        GroupConfig c = of(groupId);
        return broker.withTimeouts(
                c.consumerHeartbeatIntervalMs().orElse(broker.heartbeatIntervalMs()),
                c.consumerSessionTimeoutMs().orElse(broker.sessionTimeoutMs()));
    }

    /** The streams-protocol settings of {@code groupId} ({@code streams.*} over the broker's), as {@link #consumer}. */
    public StreamsGroupConfig streams(String groupId, StreamsGroupConfig broker) {
        GroupConfig c = of(groupId);
        return broker.withTimeouts(
                        c.streamsHeartbeatIntervalMs().orElse(broker.heartbeatIntervalMs()),
                        c.streamsSessionTimeoutMs().orElse(broker.sessionTimeoutMs()))
                .withStandbyReplicas(c.streamsNumStandbyReplicas().orElse(broker.numStandbyReplicas()));
    }

    /**
     * Replaces {@code groupId}'s set configs by {@code change} of the current ones, after Apache's
     * validation of the whole result ({@link IllegalArgumentException} otherwise); with
     * {@code validateOnly}, nothing is written.
     */
    public void alter(String groupId, UnaryOperator<Map<String, String>> change, boolean validateOnly) {
        if (validateOnly) {
            apache.validate(change.apply(overrides(groupId)));
            return;
        }
        file.update(f -> {
            Map<String, String> proposed = new TreeMap<>(change.apply(f.groups().getOrDefault(groupId, Map.of())));
            apache.validate(proposed);
            Map<String, Map<String, String>> next = new TreeMap<>(f.groups());
            if (proposed.isEmpty()) {
                next.remove(groupId);
            } else {
                next.put(groupId, Map.copyOf(proposed));
            }
            return new GroupConfigsFile(1, next);
        });
    }
}
