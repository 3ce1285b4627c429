package io.kaas.broker.api;

import io.kaas.broker.security.AccessControl;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.RequestLevelAuthorization;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DeleteAcls ({@code kafka-acls --remove}): every ACL each filter matches, removed durably from
 * {@code __cluster/acls.json} and then from force; one result per filter naming what it removed.
 * ALTER on the cluster is checked before ({@link RequestLevelAuthorization}).
 */
public final class DeleteAclsHandler implements ApiHandler<DeleteAclsRequestData> {
    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DeleteAclsRequestData request) {
        DeleteAclsResponseData response = new DeleteAclsResponseData();
        if (!ctx.access().enabled()) {
            for (int i = 0; i < request.filters().size(); i++) {
                response.filterResults()
                        .add(new DeleteAclsResponseData.DeleteAclsFilterResult()
                                .setErrorCode(Errors.SECURITY_DISABLED.code())
                                .setErrorMessage("No Authorizer is configured."));
            }
            return CompletableFuture.completedFuture(response);
        }
        List<AclBindingFilter> filters =
                request.filters().stream().map(DeleteAclsHandler::filter).toList();
        AccessControl.of(ctx)
                .delete(filters)
                .results()
                .forEach(r -> response.filterResults().add(DeleteAclsResponse.filterResult(r)));
        return CompletableFuture.completedFuture(response);
    }

    private static AclBindingFilter filter(DeleteAclsRequestData.DeleteAclsFilter f) {
        return new AclBindingFilter(
                new ResourcePatternFilter(
                        ResourceType.fromCode(f.resourceTypeFilter()),
                        f.resourceNameFilter(),
                        PatternType.fromCode(f.patternTypeFilter())),
                new AccessControlEntryFilter(
                        f.principalFilter(),
                        f.hostFilter(),
                        AclOperation.fromCode(f.operation()),
                        AclPermissionType.fromCode(f.permissionType())));
    }
}
