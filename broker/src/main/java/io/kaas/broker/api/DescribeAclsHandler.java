package io.kaas.broker.api;

import io.kaas.broker.security.AccessControl;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.RequestLevelAuthorization;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeAcls ({@code kafka-acls --list}): the ACLs matching the filter, grouped by resource as
 * Apache answers. DESCRIBE on the cluster is checked before ({@link RequestLevelAuthorization});
 * without an authorizer the answer is SECURITY_DISABLED, as Apache's.
 */
public final class DescribeAclsHandler implements ApiHandler<DescribeAclsRequestData> {
    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeAclsRequestData request) {
        if (!ctx.access().enabled()) {
            return CompletableFuture.completedFuture(new DescribeAclsResponseData()
                    .setErrorCode(Errors.SECURITY_DISABLED.code())
                    .setErrorMessage("No Authorizer is configured on the broker"));
        }
        AclBindingFilter filter = new AclBindingFilter(
                new ResourcePatternFilter(
                        ResourceType.fromCode(request.resourceTypeFilter()),
                        request.resourceNameFilter(),
                        PatternType.fromCode(request.patternTypeFilter())),
                new AccessControlEntryFilter(
                        request.principalFilter(),
                        request.hostFilter(),
                        AclOperation.fromCode(request.operation()),
                        AclPermissionType.fromCode(request.permissionType())));
        if (filter.isUnknown()) {
            return CompletableFuture.completedFuture(new DescribeAclsResponseData()
                    .setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("The filter has unknown fields: " + filter));
        }
        return CompletableFuture.completedFuture(new DescribeAclsResponseData()
                .setResources(
                        DescribeAclsResponse.aclsResources(AccessControl.of(ctx).acls(filter))));
    }
}
