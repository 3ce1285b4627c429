package io.kaas.broker.api;

import io.kaas.broker.security.AccessControl;
import io.kaas.broker.security.ClientSession;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.internals.SecurityUtils;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;

/**
 * What a handler may know about the request besides its body: its connection's security state and
 * what that principal may do ({@link #allowed}, decided by {@link AccessControl}).
 */
public record RequestContext(ApiKeys api, short apiVersion, String clientId, int correlationId, SocketAddress remote,
                             ClientSession session, AccessControl access) implements AuthorizableRequestContext {

    /** A context without authorization (every operation allowed), for callers outside the request path. */
    public RequestContext(short apiVersion, String clientId, int correlationId, SocketAddress remote, ClientSession session) {
        this(null, apiVersion, clientId, correlationId, remote, session, AccessControl.none());
    }

    /** Apache's {@code authorize(request.context, op, type, name)}. */
    public boolean allowed(AclOperation op, ResourceType type, String name) {
        return access.allowed(this, op, type, name);
    }

    /** Apache's {@code filterByAuthorized}: the names on which {@code op} is allowed. */
    public Set<String> allowedNames(AclOperation op, ResourceType type, Collection<String> names) {
        return access.allowedNames(this, op, type, names);
    }

    /** Apache's {@code authorize(..., CLUSTER, "kafka-cluster")}. */
    public boolean allowedOnCluster(AclOperation op) {
        return access.allowed(this, op, ResourceType.CLUSTER, io.kaas.broker.security.AclStore.CLUSTER_NAME);
    }

    /** Apache's rule for creating a topic (CreateTopics, auto-creation): CREATE on the cluster or on the topic. */
    public boolean mayCreateTopic(String name) {
        return allowedOnCluster(AclOperation.CREATE) || allowed(AclOperation.CREATE, ResourceType.TOPIC, name);
    }

    /**
     * Apache's check on one config resource ({@code op} is DESCRIBE_CONFIGS or ALTER_CONFIGS): broker
     * configs need it on the cluster, a topic's or group's on that topic or group.
     *
     * @return NONE, or the error the resource's result gets
     */
    public org.apache.kafka.common.protocol.Errors configAccess(AclOperation op, byte configResourceType, String name) {
        org.apache.kafka.common.config.ConfigResource.Type type = org.apache.kafka.common.config.ConfigResource.Type.forId(configResourceType);
        return switch (type) {
            case TOPIC -> allowed(op, ResourceType.TOPIC, name) ? org.apache.kafka.common.protocol.Errors.NONE
                    : org.apache.kafka.common.protocol.Errors.TOPIC_AUTHORIZATION_FAILED;
            case GROUP -> allowed(op, ResourceType.GROUP, name) ? org.apache.kafka.common.protocol.Errors.NONE
                    : org.apache.kafka.common.protocol.Errors.GROUP_AUTHORIZATION_FAILED;
            default -> allowedOnCluster(op) ? org.apache.kafka.common.protocol.Errors.NONE
                    : org.apache.kafka.common.protocol.Errors.CLUSTER_AUTHORIZATION_FAILED;
        };
    }

    /** KIP-679's {@code authorizeByResourceType}. */
    public boolean allowedOnSome(AclOperation op, ResourceType type) {
        return access.allowedOnSome(this, op, type);
    }

    @Override
    public String listenerName() {
        return session == null ? "PLAINTEXT" : session.listener().listenerName();
    }

    @Override
    public SecurityProtocol securityProtocol() {
        return session == null ? SecurityProtocol.PLAINTEXT : session.listener().protocol();
    }

    @Override
    public KafkaPrincipal principal() {
        return SecurityUtils.parseKafkaPrincipal(session == null ? ClientSession.ANONYMOUS : session.principal());
    }

    @Override
    public InetAddress clientAddress() {
        return remote instanceof InetSocketAddress i && i.getAddress() != null ? i.getAddress() : InetAddress.getLoopbackAddress();
    }

    @Override
    public int requestType() {
        return api == null ? -1 : api.id;
    }

    @Override
    public int requestVersion() {
        return apiVersion;
    }

    @Override
    public int correlationId() {
        return correlationId;
    }
}
