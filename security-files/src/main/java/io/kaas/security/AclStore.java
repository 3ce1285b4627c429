package io.kaas.security;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.StateFileLock;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.utils.internals.SecurityUtils;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.server.authorizer.AclCreateResult;
import org.apache.kafka.server.authorizer.AclDeleteResult;

/**
 * The ACLs in {@code <data>/__cluster/acls.json}: Apache's ACL bindings, each under the id Apache's
 * controller would give it (what its metadata log holds as AccessControlEntryRecords). Every change
 * rewrites the whole file atomically ({@link StateJson#write}: tmp, fsync, rename, directory fsync), so
 * after a crash the file holds either the ACLs before a CreateAcls/DeleteAcls or those after it, never
 * a mix; the change is answered only after that write. Validation is Apache's (its controller's
 * {@code AclControlManager} and the broker's {@code AclApis}), so kafka-acls gets the same errors.
 *
 * <p>Shared by the broker ({@code AccessControl}), the other brokers of a shared directory and
 * {@code kaas acl}: each change reads and rewrites the file under its {@link StateFileLock}. Thread-safe (monitor).
 */
public final class AclStore {
    /** Apache's only CLUSTER resource name. */
    public static final String CLUSTER_NAME = org.apache.kafka.common.resource.Resource.CLUSTER_NAME;

    /** The file's shape. Unknown fields are ignored by {@link StateJson}. */
    public record AclsFile(int version, List<StoredAcl> acls) {}

    /** One binding; enums by their Apache names (TOPIC, PREFIXED, WRITE, ALLOW). */
    public record StoredAcl(
            String id,
            String resourceType,
            String resourceName,
            String patternType,
            String principal,
            String host,
            String operation,
            String permissionType) {
        static StoredAcl of(Uuid id, StandardAcl a) {
            return new StoredAcl(
                    id.toString(),
                    a.resourceType().name(),
                    a.resourceName(),
                    a.patternType().name(),
                    a.principal(),
                    a.host(),
                    a.operation().name(),
                    a.permissionType().name());
        }

        StandardAcl toAcl() {
            return new StandardAcl(
                    ResourceType.valueOf(resourceType),
                    resourceName,
                    PatternType.valueOf(patternType),
                    principal,
                    host,
                    AclOperation.valueOf(operation),
                    AclPermissionType.valueOf(permissionType));
        }
    }

    /** What a CreateAcls did: one result per binding asked for, and the ACLs new to the file. */
    public record Created(List<AclCreateResult> results, Map<Uuid, StandardAcl> added) {}

    /** What a DeleteAcls did: one result per filter, and the ids gone from the file. */
    public record Deleted(List<AclDeleteResult> results, Set<Uuid> removed) {}

    private final Path file;

    public AclStore(Path file) {
        this.file = file;
    }

    public static AclStore inDataDir(Path dataDir) {
        return new AclStore(ClusterDir.acls(ClusterDir.of(dataDir)));
    }

    public Path file() {
        return file;
    }

    /** Every ACL by id, in the file's order; empty when there is no file. */
    public synchronized Map<Uuid, StandardAcl> load() {
        Map<Uuid, StandardAcl> out = new LinkedHashMap<>();
        AclsFile read = StateJson.read(file, AclsFile.class).orElse(new AclsFile(1, List.of()));
        if (read.acls() != null) {
            for (StoredAcl s : read.acls()) {
                try {
                    out.put(Uuid.fromString(s.id()), s.toAcl());
                } catch (RuntimeException e) {
                    throw new StorageException(
                            StorageException.Kind.IO, file + ": not a valid ACL entry " + s + ": " + e.getMessage(), e);
                }
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** Every ACL as Apache's binding, in the file's order. */
    public List<AclBinding> bindings() {
        return load().values().stream().map(StandardAcl::toBinding).toList();
    }

    /**
     * Adds the valid bindings not yet present (an existing one succeeds without a second copy, as
     * Apache). When the file cannot be written nothing is added and every valid binding fails.
     */
    public synchronized Created create(List<AclBinding> bindings) {
        StateFileLock lock;
        try {
            lock = lock();
        } catch (StorageException e) {
            KafkaStorageException failure = new KafkaStorageException(e.getMessage(), e);
            return new Created(
                    bindings.stream().map(b -> new AclCreateResult(failure)).toList(), Map.of());
        }
        try (lock) {
            return createLocked(bindings);
        }
    }

    private Created createLocked(List<AclBinding> bindings) {
        Map<Uuid, StandardAcl> all = new LinkedHashMap<>(load());
        Set<StandardAcl> existing = new HashSet<>(all.values());
        Map<Uuid, StandardAcl> added = new LinkedHashMap<>();
        List<AclCreateResult> results = new ArrayList<>();
        List<Integer> written = new ArrayList<>();
        for (AclBinding b : bindings) {
            StandardAcl acl;
            try {
                validateNew(b);
                acl = StandardAcl.fromAclBinding(b);
            } catch (ApiException e) {
                results.add(new AclCreateResult(e));
                continue;
            }
            if (existing.add(acl)) {
                Uuid id = newId(all);
                all.put(id, acl);
                added.put(id, acl);
            }
            written.add(results.size());
            results.add(AclCreateResult.SUCCESS);
        }
        if (!added.isEmpty()) {
            try {
                save(all);
            } catch (StorageException e) {
                for (int i : written) {
                    results.set(
                            i,
                            new AclCreateResult(
                                    new KafkaStorageException(file + ": cannot write: " + e.getMessage(), e)));
                }
                return new Created(results, Map.of());
            }
        }
        return new Created(results, added);
    }

    /** Removes every ACL each filter matches; when the file cannot be written nothing is removed. */
    public synchronized Deleted delete(List<AclBindingFilter> filters) {
        StateFileLock lock;
        try {
            lock = lock();
        } catch (StorageException e) {
            KafkaStorageException failure = new KafkaStorageException(e.getMessage(), e);
            return new Deleted(
                    filters.stream().map(f -> new AclDeleteResult(failure)).toList(), Set.of());
        }
        try (lock) {
            return deleteLocked(filters);
        }
    }

    private Deleted deleteLocked(List<AclBindingFilter> filters) {
        Map<Uuid, StandardAcl> all = new LinkedHashMap<>(load());
        Set<Uuid> removed = new HashSet<>();
        List<AclDeleteResult> results = new ArrayList<>();
        for (AclBindingFilter f : filters) {
            if (f.patternFilter().isUnknown() || f.entryFilter().isUnknown()) {
                results.add(new AclDeleteResult(new InvalidRequestException(
                        f.patternFilter().isUnknown() ? "Unknown patternFilter." : "Unknown entryFilter.")));
                continue;
            }
            List<AclDeleteResult.AclBindingDeleteResult> matched = new ArrayList<>();
            all.forEach((id, acl) -> {
                AclBinding binding = acl.toBinding();
                if (f.matches(binding)) {
                    matched.add(new AclDeleteResult.AclBindingDeleteResult(binding));
                    removed.add(id);
                }
            });
            results.add(new AclDeleteResult(matched));
        }
        if (!removed.isEmpty()) {
            Map<Uuid, StandardAcl> left = new LinkedHashMap<>(all);
            left.keySet().removeAll(removed);
            try {
                save(left);
            } catch (StorageException e) {
                List<AclDeleteResult> failed = new ArrayList<>();
                for (int i = 0; i < results.size(); i++) {
                    failed.add(new AclDeleteResult(
                            new KafkaStorageException(file + ": cannot write: " + e.getMessage(), e)));
                }
                return new Deleted(failed, Set.of());
            }
        }
        return new Deleted(results, removed);
    }

    /** Apache's checks for a new binding: AclApis (cluster name, empty name) and AclControlManager.validateNewAcl. */
    static void validateNew(AclBinding b) {
        ResourceType type = b.pattern().resourceType();
        if (type == ResourceType.UNKNOWN || type == ResourceType.ANY) {
            throw new InvalidRequestException("Invalid resourceType " + type);
        }
        if (type == ResourceType.CLUSTER && !CLUSTER_NAME.equals(b.pattern().name())) {
            throw new InvalidRequestException("The only valid name for the CLUSTER resource is " + CLUSTER_NAME);
        }
        if (b.pattern().name() == null || b.pattern().name().isEmpty()) {
            throw new InvalidRequestException("Invalid empty resource name");
        }
        PatternType pattern = b.pattern().patternType();
        if (pattern != PatternType.LITERAL && pattern != PatternType.PREFIXED) {
            throw new InvalidRequestException("Invalid patternType " + pattern);
        }
        AclOperation op = b.entry().operation();
        if (op == AclOperation.UNKNOWN || op == AclOperation.ANY) {
            throw new InvalidRequestException("Invalid operation " + op);
        }
        AclPermissionType permission = b.entry().permissionType();
        if (permission != AclPermissionType.ALLOW && permission != AclPermissionType.DENY) {
            throw new InvalidRequestException("Invalid permissionType " + permission);
        }
        try {
            SecurityUtils.parseKafkaPrincipal(b.entry().principal());
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("Invalid principal " + b.entry().principal() + ": " + e.getMessage());
        }
    }

    private static Uuid newId(Map<Uuid, StandardAcl> taken) {
        Uuid id;
        do {
            id = Uuid.randomUuid();
        } while (taken.containsKey(id));
        return id;
    }

    /**
     * The file's {@link StateFileLock}, held from the read to the write of one change: the other brokers
     * of a shared directory and {@code kaas acl} change the file too, and without it one change is lost.
     */
    private StateFileLock lock() {
        return StateFileLock.exclusive(file);
    }

    private void save(Map<Uuid, StandardAcl> acls) {
        List<StoredAcl> out = new ArrayList<>();
        new TreeMap<>(acls).forEach((id, acl) -> out.add(StoredAcl.of(id, acl)));
        StateJson.write(file, new AclsFile(1, out));
    }
}
