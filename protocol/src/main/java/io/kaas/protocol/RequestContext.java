package io.kaas.protocol;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.internals.SecurityUtils;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;

/**
 * What a handler may know about the request besides its body: its connection's security state and
 * what that principal may do ({@link #allowed}, decided by the broker's {@link Authorization}).
 */
public record RequestContext(
        ApiKeys api,
        short apiVersion,
        String clientId,
        int correlationId,
        SocketAddress remote,
        ClientSession session,
        Authorization access)
        implements AuthorizableRequestContext {

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
        return access.allowed(this, op, ResourceType.CLUSTER, Authorization.CLUSTER_NAME);
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
    public Errors configAccess(AclOperation op, byte configResourceType, String name) {
        ConfigResource.Type type = ConfigResource.Type.forId(configResourceType);
        return switch (type) {
            case TOPIC -> allowed(op, ResourceType.TOPIC, name) ? Errors.NONE : Errors.TOPIC_AUTHORIZATION_FAILED;
            case GROUP -> allowed(op, ResourceType.GROUP, name) ? Errors.NONE : Errors.GROUP_AUTHORIZATION_FAILED;
            default -> allowedOnCluster(op) ? Errors.NONE : Errors.CLUSTER_AUTHORIZATION_FAILED;
        };
    }

    /** KIP-430: the operations this principal may do on the resource, as Apache's bit field. */
    public int authorizedOperations(ResourceType type, String name) {
        return access.authorizedOperations(this, type, name);
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
        KafkaPrincipal p =
                SecurityUtils.parseKafkaPrincipal(session == null ? ClientSession.ANONYMOUS : session.principal());
        p.tokenAuthenticated(session != null && session.tokenAuthenticated());
        return p;
    }

    @Override
    public InetAddress clientAddress() {
        return remote instanceof InetSocketAddress i && i.getAddress() != null
                ? i.getAddress()
                : InetAddress.getLoopbackAddress();
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
