package io.kaas.broker.quota;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StateFileLock;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.quota.ClientQuotaEntity;

/**
 * Client quotas in {@code <data>/__cluster/client-quotas.json}: per entity (user and/or client id, a
 * null name meaning Apache's {@code <default>}) its quota values by Apache's keys. Rewritten
 * atomically on each AlterClientQuotas before it is answered ({@link StateJson#write}), under the file's
 * {@link StateFileLock} from the read to the write.
 */
public final class ClientQuotaStore {
    /** The file's shape. */
    public record QuotasFile(int version, List<StoredEntry> entries) {}

    /** One entity (its components) and its quota values by Apache's keys. */
    public record StoredEntry(List<Component> entity, Map<String, Double> quotas) {}

    /** One part of an entity: Apache's type ({@code user}, {@code client-id}) and a name, or {@code default: true} for its {@code <default>}. */
    public record Component(String type, String name, Boolean isDefault) {}

    private final Path file;

    public ClientQuotaStore(Path file) {
        this.file = file;
    }

    public static ClientQuotaStore inDataDir(Path dataDir) {
        return new ClientQuotaStore(ClusterDir.clientQuotas(ClusterDir.of(dataDir)));
    }

    public Path file() {
        return file;
    }

    /**
     * The file's {@link StateFileLock}, to hold from the read to the write of one change: every broker of
     * a shared directory rewrites the file, and without it one broker's change is lost.
     */
    public StateFileLock lock() {
        return StateFileLock.exclusive(file);
    }

    public synchronized Map<ClientQuotaEntity, Map<String, Double>> load() {
        Map<ClientQuotaEntity, Map<String, Double>> out = new LinkedHashMap<>();
        StateJson.read(file, QuotasFile.class).ifPresent(f -> {
            if (f.entries() != null) {
                f.entries().forEach(e -> {
                    Map<String, String> entity = new HashMap<>();
                    e.entity().forEach(c -> entity.put(c.type(), Boolean.TRUE.equals(c.isDefault()) ? null : c.name()));
                    out.put(new ClientQuotaEntity(entity), Map.copyOf(e.quotas()));
                });
            }
        });
        return out;
    }

    /** Rewrites the file; a broker holds {@link #lock()} since it read what it changed. */
    public synchronized void save(Map<ClientQuotaEntity, Map<String, Double>> quotas) {
        try {
            AtomicFile.createDirectories(
                    file.getParent()); // durably: an answered change must not lose its directory entry
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, file.getParent() + ": cannot create: " + e.getMessage(), e);
        }
        List<StoredEntry> entries = new ArrayList<>();
        quotas.forEach((entity, values) -> {
            List<Component> components = new ArrayList<>();
            new TreeMap<>(entity.entries())
                    .forEach((type, name) -> components.add(
                            name == null ? new Component(type, null, true) : new Component(type, name, null)));
            entries.add(new StoredEntry(components, new TreeMap<>(values)));
        });
        StateJson.write(file, new QuotasFile(1, entries));
    }
}
