package io.kaas.broker.security;

import io.kaas.protocol.Authorization;
import io.kaas.security.AclStore;
import io.kaas.storage.io.FileChangeCheck;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.authorizer.AuthorizationResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may do what: Apache's own {@link StandardAuthorizer} (kafka-metadata 4.4), fed from
 * {@link AclStore} instead of a KRaft metadata log — {@code loadSnapshot} at start, then
 * {@code addAcl}/{@code removeAcl} after each durable change — so every decision (literal and prefixed
 * patterns, DENY before ALLOW, implied operations, hosts, {@code super.users},
 * {@code allow.everyone.if.no.acl.found}) is Apache's, not a copy of it.
 *
 * <p>The file is shared: {@code kaas acl add|remove} and the other brokers of a shared data directory
 * change it too (each change under the file's lock, {@link AclStore}). So the broker looks at the file's
 * identity at most once a second when it decides ({@link FileChangeCheck}), and applies what changed by id: an ACL
 * added or removed elsewhere is in force within about a second, without a restart. A file that does not
 * parse is logged and the ACLs in force stay.
 *
 * <p>{@link #none()} is a broker without {@code authorizer.class.name}: everything is allowed and the
 * ACL APIs answer SECURITY_DISABLED, as Apache without an authorizer.
 */
public final class AccessControl implements AutoCloseable, Authorization {
    /** The {@code authorizer.class.name} that turns authorization on (Apache's KRaft authorizer). */
    public static final String STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

    static {
        // A literal so that option descriptions can name it; it must stay the class kaas runs.
        if (!STANDARD_AUTHORIZER.equals(StandardAuthorizer.class.getName())) {
            throw new ExceptionInInitializerError("StandardAuthorizer moved to " + StandardAuthorizer.class.getName());
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(AccessControl.class);

    private final StandardAuthorizer authorizer;
    private final AclStore store;
    private final Metrics metrics;
    /** The ACLs the authorizer holds, by id; guarded by this. */
    private final Map<Uuid, StandardAcl> inForce = new HashMap<>();
    /** Whether acls.json changed since the ACLs in force were read (null without an authorizer). */
    private final FileChangeCheck changes;

    private AccessControl(StandardAuthorizer authorizer, AclStore store, Metrics metrics, FileChangeCheck changes) {
        this.authorizer = authorizer;
        this.store = store;
        this.metrics = metrics;
        this.changes = changes;
    }

    /** The broker's access control behind a request's {@link RequestContext#access} (the one the invoker authorizes with). */
    public static AccessControl of(io.kaas.protocol.RequestContext ctx) {
        return (AccessControl) ctx.access();
    }

    public static AccessControl none() {
        return new AccessControl(null, null, null, null);
    }

    /** Apache's authorizer over the ACLs of {@code store}, configured with {@code super.users} and {@code allow.everyone.if.no.acl.found}. */
    public static AccessControl standard(AclStore store, Set<String> superUsers, boolean allowEveryoneIfNoAcl) {
        Metrics metrics = new Metrics();
        StandardAuthorizer a = new StandardAuthorizer();
        // Its per-decision counters need a metrics registry; they stay inside (the broker exports its own metrics).
        a.withPluginMetrics(new PluginMetricsImpl(metrics, Map.of()));
        Map<String, Object> configs = new HashMap<>();
        configs.put(StandardAuthorizer.SUPER_USERS_CONFIG, String.join(";", superUsers));
        configs.put(
                StandardAuthorizer.ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG, Boolean.toString(allowEveryoneIfNoAcl));
        a.configure(configs);
        FileChangeCheck changes = new FileChangeCheck(store.file(), FileChangeCheck.DEFAULT_INTERVAL_NANOS);
        Map<Uuid, StandardAcl> acls = store.load();
        a.loadSnapshot(acls);
        a.completeInitialLoad();
        AccessControl out = new AccessControl(a, store, metrics, changes);
        synchronized (out) {
            out.inForce.putAll(acls);
        }
        return out;
    }

    /** At most once per {@link FileChangeCheck#DEFAULT_INTERVAL_NANOS}: applies a change to acls.json made elsewhere. */
    private void maybeReload() {
        if (changes.changed()) {
            reload();
        }
    }

    /** Applies the file's ACLs to the authorizer by id, when the file changed since it was last loaded. */
    synchronized void reloadIfChanged() {
        if (changes.changedNow()) {
            reload();
        }
    }

    private synchronized void reload() {
        Map<Uuid, StandardAcl> now;
        try {
            now = store.load();
        } catch (RuntimeException e) {
            LOG.warn("{}: not reloaded, the ACLs in force stay: {}", store.file(), e.getMessage());
            return;
        }
        int added = 0;
        int removed = 0;
        for (Uuid id : new ArrayList<>(inForce.keySet())) {
            if (!now.containsKey(id) || !now.get(id).equals(inForce.get(id))) {
                authorizer.removeAcl(id);
                inForce.remove(id);
                removed++;
            }
        }
        for (Map.Entry<Uuid, StandardAcl> e : now.entrySet()) {
            if (!inForce.containsKey(e.getKey())) {
                authorizer.addAcl(e.getKey(), e.getValue());
                inForce.put(e.getKey(), e.getValue());
                added++;
            }
        }
        if (added + removed > 0) {
            LOG.info("{} changed: {} ACL(s) added, {} removed", store.file(), added, removed);
        }
    }

    /** Is an authorizer configured (ACLs enforced)? */
    @Override
    public boolean enabled() {
        return authorizer != null;
    }

    @Override
    public boolean allowed(AuthorizableRequestContext ctx, AclOperation op, ResourceType type, String name) {
        if (authorizer == null) {
            return true;
        }
        maybeReload();
        return authorizer.authorize(ctx, List.of(action(op, type, name))).get(0) == AuthorizationResult.ALLOWED;
    }

    /** The names of {@code names} on which {@code op} is allowed (Apache's filterByAuthorized: one decision per distinct name). */
    @Override
    public Set<String> allowedNames(
            AuthorizableRequestContext ctx, AclOperation op, ResourceType type, Collection<String> names) {
        Set<String> distinct = new LinkedHashSet<>(names);
        if (authorizer == null) {
            return distinct;
        }
        maybeReload();
        List<String> ordered = new ArrayList<>(distinct);
        List<Action> actions = ordered.stream().map(n -> action(op, type, n)).toList();
        List<AuthorizationResult> results = authorizer.authorize(ctx, actions);
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < ordered.size(); i++) {
            if (results.get(i) == AuthorizationResult.ALLOWED) {
                out.add(ordered.get(i));
            }
        }
        return out;
    }

    /** KIP-679: may {@code op} be done on some resource of {@code type} (an ALLOW on any pattern not wholly denied)? */
    @Override
    public boolean allowedOnSome(AuthorizableRequestContext ctx, AclOperation op, ResourceType type) {
        if (authorizer == null) {
            return true;
        }
        maybeReload();
        return authorizer.authorizeByResourceType(ctx, op, type) == AuthorizationResult.ALLOWED;
    }

    /** Apache's {@code AclEntry.supportedOperations}: what an authorized-operations bit field may hold per resource type. */
    private static final Map<ResourceType, List<AclOperation>> SUPPORTED = Map.of(
            ResourceType.TOPIC,
                    List.of(
                            AclOperation.READ,
                            AclOperation.WRITE,
                            AclOperation.CREATE,
                            AclOperation.DESCRIBE,
                            AclOperation.DELETE,
                            AclOperation.ALTER,
                            AclOperation.DESCRIBE_CONFIGS,
                            AclOperation.ALTER_CONFIGS),
            ResourceType.GROUP,
                    List.of(
                            AclOperation.READ,
                            AclOperation.DESCRIBE,
                            AclOperation.DELETE,
                            AclOperation.DESCRIBE_CONFIGS,
                            AclOperation.ALTER_CONFIGS),
            ResourceType.CLUSTER,
                    List.of(
                            AclOperation.CREATE,
                            AclOperation.CLUSTER_ACTION,
                            AclOperation.DESCRIBE_CONFIGS,
                            AclOperation.ALTER_CONFIGS,
                            AclOperation.IDEMPOTENT_WRITE,
                            AclOperation.ALTER,
                            AclOperation.DESCRIBE),
            ResourceType.TRANSACTIONAL_ID, List.of(AclOperation.DESCRIBE, AclOperation.WRITE));

    /**
     * Apache's {@code authorizedOperations}: the operations allowed on the resource as a bit field of
     * their codes (KIP-430); without an authorizer, every supported one.
     */
    @Override
    public int authorizedOperations(AuthorizableRequestContext ctx, ResourceType type, String name) {
        java.util.Set<Byte> codes = new java.util.HashSet<>();
        List<AclOperation> supported = SUPPORTED.getOrDefault(type, List.of());
        if (authorizer != null) {
            maybeReload();
        }
        List<AuthorizationResult> results = authorizer == null
                ? null
                : authorizer.authorize(
                        ctx,
                        supported.stream()
                                .map(op -> new Action(
                                        op, new ResourcePattern(type, name, PatternType.LITERAL), 1, false, false))
                                .toList());
        for (int i = 0; i < supported.size(); i++) {
            if (results == null || results.get(i) == AuthorizationResult.ALLOWED) {
                codes.add(supported.get(i).code());
            }
        }
        return org.apache.kafka.common.utils.Utils.to32BitField(codes);
    }

    /** The ACLs {@code filter} matches (DescribeAcls). */
    public List<AclBinding> acls(AclBindingFilter filter) {
        List<AclBinding> out = new ArrayList<>();
        if (authorizer != null) {
            maybeReload();
            authorizer.acls(filter).forEach(out::add);
        }
        return out;
    }

    /** CreateAcls: written to {@code acls.json} first, then in force. */
    public synchronized AclStore.Created create(List<AclBinding> bindings) {
        requireEnabled();
        reloadIfChanged(); // what others wrote first, so ids and the diff stay exact
        AclStore.Created created = store.create(bindings);
        created.added().forEach(authorizer::addAcl);
        inForce.putAll(created.added());
        return created;
    }

    /** DeleteAcls: removed from {@code acls.json} first, then no longer in force. */
    public synchronized AclStore.Deleted delete(List<AclBindingFilter> filters) {
        requireEnabled();
        reloadIfChanged();
        AclStore.Deleted deleted = store.delete(filters);
        deleted.removed().forEach(authorizer::removeAcl);
        inForce.keySet().removeAll(deleted.removed());
        return deleted;
    }

    private void requireEnabled() {
        if (authorizer == null) {
            throw new IllegalStateException("no authorizer is configured");
        }
    }

    private static Action action(AclOperation op, ResourceType type, String name) {
        // logIfAllowed=false, logIfDenied=true: Apache's default for a request's own resources.
        return new Action(op, new ResourcePattern(type, name, PatternType.LITERAL), 1, false, true);
    }

    @Override
    public void close() {
        if (authorizer != null) {
            try {
                authorizer.close();
            } catch (IOException e) {
                // nothing held but memory
            }
            metrics.close();
        }
    }
}
