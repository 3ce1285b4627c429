package io.kaas.broker.api;

import io.kaas.broker.security.AccessControl;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.RequestLevelAuthorization;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.server.authorizer.AclCreateResult;

/**
 * CreateAcls ({@code kafka-acls --add}): each binding validated as Apache, written durably to
 * {@code __cluster/acls.json}, then in force; one result per binding in request order. ALTER on the
 * cluster is checked before ({@link RequestLevelAuthorization}).
 */
public final class CreateAclsHandler implements ApiHandler<CreateAclsRequestData> {
    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, CreateAclsRequestData request) {
        CreateAclsResponseData response = new CreateAclsResponseData();
        if (!ctx.access().enabled()) {
            for (int i = 0; i < request.creations().size(); i++) {
                response.results()
                        .add(new CreateAclsResponseData.AclCreationResult()
                                .setErrorCode(Errors.SECURITY_DISABLED.code())
                                .setErrorMessage("No Authorizer is configured."));
            }
            return CompletableFuture.completedFuture(response);
        }
        List<AclBinding> bindings =
                request.creations().stream().map(CreateAclsRequest::aclBinding).toList();
        for (AclCreateResult r : AccessControl.of(ctx).create(bindings).results()) {
            CreateAclsResponseData.AclCreationResult out = new CreateAclsResponseData.AclCreationResult();
            r.exception().ifPresent(e -> {
                ApiError error = ApiError.fromThrowable(e);
                out.setErrorCode(error.error().code()).setErrorMessage(error.message());
            });
            response.results().add(out);
        }
        return CompletableFuture.completedFuture(response);
    }
}
