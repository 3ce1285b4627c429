package io.kaas.broker.api;

import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.security.ScramCredentialStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.CredentialInfo;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * DescribeUserScramCredentials: mechanisms and iteration counts per user (never salts or keys).
 * No users named (null or empty) means every user; a named unknown user is RESOURCE_NOT_FOUND and a
 * name asked twice DUPLICATE_RESOURCE, as Apache answers.
 */
public final class DescribeUserScramCredentialsHandler implements ApiHandler<DescribeUserScramCredentialsRequestData> {
    private final ScramCredentialStore store;

    public DescribeUserScramCredentialsHandler(ScramCredentialStore store) {
        this.store = store;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, DescribeUserScramCredentialsRequestData request) {
        SortedMap<String, SortedMap<String, Integer>> all = store.describe();
        DescribeUserScramCredentialsResponseData response = new DescribeUserScramCredentialsResponseData();
        List<String> wanted = new ArrayList<>();
        if (request.users() == null || request.users().isEmpty()) {
            wanted.addAll(all.keySet());
        } else {
            request.users().forEach(u -> wanted.add(u.name()));
        }
        for (String user : wanted) {
            DescribeUserScramCredentialsResult r = new DescribeUserScramCredentialsResult().setUser(user);
            if (wanted.indexOf(user) != wanted.lastIndexOf(user)) {
                r.setErrorCode(Errors.DUPLICATE_RESOURCE.code())
                        .setErrorMessage(
                                "Cannot describe SCRAM credentials for the same user twice in a single request: "
                                        + user);
            } else if (!all.containsKey(user)) {
                r.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                        .setErrorMessage("Attempt to describe a user credential that does not exist: " + user);
            } else {
                for (Map.Entry<String, Integer> e : all.get(user).entrySet()) {
                    r.credentialInfos()
                            .add(new CredentialInfo()
                                    .setMechanism(ScramMechanism.forMechanismName(e.getKey())
                                            .type())
                                    .setIterations(e.getValue()));
                }
            }
            response.results().add(r);
        }
        return CompletableFuture.completedFuture(response);
    }
}
