package io.kaas.broker.group;

import io.kaas.broker.group.streams.StreamsGroupConfig;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StateFileLock;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
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
 * {@link StateFileLock} from the read to the write, so that brokers sharing the directory lose no change.
 * A group needs not exist to have configs, as in Apache.
 */
public final class GroupConfigs {
    /** The file's shape: each group's set configs by Apache's names. */
    public record GroupConfigsFile(int version, Map<String, Map<String, String>> groups) {}

    private final Path file;
    private final ApacheGroupConfigs apache;
    private final Object lock = new Object();
    // Guarded by lock: the file's content as this broker last read or wrote it.
    private Map<String, Map<String, String>> byGroup;
    /** The effective configs of a group with none of its own. */
    private final GroupConfig defaults;
    /**
     * Guarded by lock: effective configs of groups that have their own, parsed once (the protocols read them at every
     * heartbeat); emptied when a change is written. Only groups with configs are here, so it is as bounded as the file.
     */
    private final Map<String, GroupConfig> parsed = new HashMap<>();

    public GroupConfigs(Path file, ApacheGroupConfigs apache) {
        this.file = file;
        this.apache = apache;
        this.byGroup = read();
        this.defaults = apache.effective(Map.of());
    }

    public ApacheGroupConfigs apache() {
        return apache;
    }

    /** The configs set on {@code groupId} (empty when none). */
    public Map<String, String> overrides(String groupId) {
        synchronized (lock) {
            return byGroup.getOrDefault(groupId, Map.of());
        }
    }

    /** The groups with configs set (ListConfigResources). */
    public java.util.Set<String> groupIds() {
        synchronized (lock) {
            return java.util.Set.copyOf(byGroup.keySet());
        }
    }

    /** {@code groupId}'s effective configs: its own over the broker's defaults. */
    public GroupConfig of(String groupId) {
        synchronized (lock) {
            Map<String, String> own = byGroup.getOrDefault(groupId, Map.of());
            return own.isEmpty() ? defaults : parsed.computeIfAbsent(groupId, id -> apache.effective(own));
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
        synchronized (lock) {
            if (validateOnly) {
                apache.validate(change.apply(byGroup.getOrDefault(groupId, Map.of())));
                return;
            }
            try (StateFileLock held = StateFileLock.exclusive(file)) {
                Map<String, Map<String, String>> current = read(); // another broker may have written it
                Map<String, String> proposed = new TreeMap<>(change.apply(current.getOrDefault(groupId, Map.of())));
                apache.validate(proposed);
                Map<String, Map<String, String>> next = new TreeMap<>(current);
                if (proposed.isEmpty()) {
                    next.remove(groupId);
                } else {
                    next.put(groupId, Map.copyOf(proposed));
                }
                write(next);
                byGroup = Map.copyOf(next);
                parsed.clear();
            }
        }
    }

    private Map<String, Map<String, String>> read() {
        return StateJson.read(file, GroupConfigsFile.class)
                .map(f -> f.groups() == null ? Map.<String, Map<String, String>>of() : Map.copyOf(f.groups()))
                .orElse(Map.of());
    }

    private void write(Map<String, Map<String, String>> groups) {
        try {
            AtomicFile.createDirectories(file.getParent());
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, file.getParent() + ": cannot create: " + e.getMessage(), e);
        }
        StateJson.write(file, new GroupConfigsFile(1, groups));
    }
}
