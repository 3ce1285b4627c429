package io.kaas.broker.security;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.authorizer.AuthorizationResult;

/**
 * Who may do what: Apache's own {@link StandardAuthorizer} (kafka-metadata 4.4), fed from
 * {@link AclStore} instead of a KRaft metadata log — {@code loadSnapshot} at start, then
 * {@code addAcl}/{@code removeAcl} after each durable change — so every decision (literal and prefixed
 * patterns, DENY before ALLOW, implied operations, hosts, {@code super.users},
 * {@code allow.everyone.if.no.acl.found}) is Apache's, not a copy of it.
 *
 * <p>{@link #none()} is a broker without {@code authorizer.class.name}: everything is allowed and the
 * ACL APIs answer SECURITY_DISABLED, as Apache without an authorizer.
 */
public final class AccessControl implements AutoCloseable {
    /** The {@code authorizer.class.name} that turns authorization on (Apache's KRaft authorizer). */
    public static final String STANDARD_AUTHORIZER = StandardAuthorizer.class.getName();

    private final StandardAuthorizer authorizer;
    private final AclStore store;
    private final Metrics metrics;

    private AccessControl(StandardAuthorizer authorizer, AclStore store, Metrics metrics) {
        this.authorizer = authorizer;
        this.store = store;
        this.metrics = metrics;
    }

    public static AccessControl none() {
        return new AccessControl(null, null, null);
    }

    /** Apache's authorizer over the ACLs of {@code store}, configured with {@code super.users} and {@code allow.everyone.if.no.acl.found}. */
    public static AccessControl standard(AclStore store, Set<String> superUsers, boolean allowEveryoneIfNoAcl) {
        Metrics metrics = new Metrics();
        StandardAuthorizer a = new StandardAuthorizer();
        // Its per-decision counters need a metrics registry; they stay inside (the broker exports its own metrics).
        a.withPluginMetrics(new PluginMetricsImpl(metrics, Map.of()));
        Map<String, Object> configs = new HashMap<>();
        configs.put(StandardAuthorizer.SUPER_USERS_CONFIG, String.join(";", superUsers));
        configs.put(StandardAuthorizer.ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG, Boolean.toString(allowEveryoneIfNoAcl));
        a.configure(configs);
        a.loadSnapshot(store.load());
        a.completeInitialLoad();
        return new AccessControl(a, store, metrics);
    }

    /** Is an authorizer configured (ACLs enforced)? */
    public boolean enabled() {
        return authorizer != null;
    }

    public boolean allowed(AuthorizableRequestContext ctx, AclOperation op, ResourceType type, String name) {
        if (authorizer == null) {
            return true;
        }
        return authorizer.authorize(ctx, List.of(action(op, type, name))).get(0) == AuthorizationResult.ALLOWED;
    }

    /** The names of {@code names} on which {@code op} is allowed (Apache's filterByAuthorized: one decision per distinct name). */
    public Set<String> allowedNames(AuthorizableRequestContext ctx, AclOperation op, ResourceType type, Collection<String> names) {
        Set<String> distinct = new LinkedHashSet<>(names);
        if (authorizer == null) {
            return distinct;
        }
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
    public boolean allowedOnSome(AuthorizableRequestContext ctx, AclOperation op, ResourceType type) {
        return authorizer == null || authorizer.authorizeByResourceType(ctx, op, type) == AuthorizationResult.ALLOWED;
    }

    /** The ACLs {@code filter} matches (DescribeAcls). */
    public List<AclBinding> acls(AclBindingFilter filter) {
        List<AclBinding> out = new ArrayList<>();
        if (authorizer != null) {
            authorizer.acls(filter).forEach(out::add);
        }
        return out;
    }

    /** CreateAcls: written to {@code acls.json} first, then in force. */
    public synchronized AclStore.Created create(List<AclBinding> bindings) {
        requireEnabled();
        AclStore.Created created = store.create(bindings);
        created.added().forEach(authorizer::addAcl);
        return created;
    }

    /** DeleteAcls: removed from {@code acls.json} first, then no longer in force. */
    public synchronized AclStore.Deleted delete(List<AclBindingFilter> filters) {
        requireEnabled();
        AclStore.Deleted deleted = store.delete(filters);
        deleted.removed().forEach(authorizer::removeAcl);
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
