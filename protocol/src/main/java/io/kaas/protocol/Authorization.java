package io.kaas.protocol;

import java.util.Collection;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;

/**
 * What a request's principal may do, as {@link RequestContext} asks it for a handler: Apache's authorizer calls,
 * reduced to the ones handlers make. The broker's ACLs implement it; this module holds no ACL.
 */
public interface Authorization {
    /** The one name of the CLUSTER resource (Apache's {@code kafka-cluster}). */
    String CLUSTER_NAME = "kafka-cluster";

    /** Is an authorizer configured (ACLs enforced)? */
    boolean enabled();

    /** Apache's {@code authorize(ctx, op, type, name)}. */
    boolean allowed(AuthorizableRequestContext ctx, AclOperation op, ResourceType type, String name);

    /** Apache's {@code filterByAuthorized}: the names of {@code names} on which {@code op} is allowed. */
    Set<String> allowedNames(
            AuthorizableRequestContext ctx, AclOperation op, ResourceType type, Collection<String> names);

    /** KIP-679's {@code authorizeByResourceType}. */
    boolean allowedOnSome(AuthorizableRequestContext ctx, AclOperation op, ResourceType type);

    /** KIP-430: the operations allowed on the resource, as Apache's bit field. */
    int authorizedOperations(AuthorizableRequestContext ctx, ResourceType type, String name);
}
