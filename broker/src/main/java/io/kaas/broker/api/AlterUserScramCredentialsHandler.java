package io.kaas.broker.api;

import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import io.kaas.security.ScramCredentialStore;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * AlterUserScramCredentials ({@code kafka-configs --entity-type users --alter --add-config
 * 'SCRAM-SHA-512=[password=...]'}): the client sends salt and salted password, never the password;
 * the broker derives StoredKey/ServerKey and writes them to the credential store. With
 * {@code super.users} set only those principals may alter credentials (CLUSTER_AUTHORIZATION_FAILED
 * otherwise); without it, as Apache without an authorizer, any connected client may. Each user gets
 * one result: the first error among its alterations, or NONE.
 */
public final class AlterUserScramCredentialsHandler implements ApiHandler<AlterUserScramCredentialsRequestData> {
    private final ScramCredentialStore store;
    private final Set<String> superUsers;

    public AlterUserScramCredentialsHandler(ScramCredentialStore store, Set<String> superUsers) {
        this.store = store;
        this.superUsers = Set.copyOf(superUsers);
    }

    private record Failure(Errors error, String message) {}

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, AlterUserScramCredentialsRequestData request) {
        Map<String, Failure> results = new LinkedHashMap<>();
        // With an authorizer, Apache's rule (ALTER on the cluster); without one, super.users when set.
        boolean allowed = ctx.access().enabled()
                ? ctx.allowedOnCluster(AclOperation.ALTER)
                : superUsers.isEmpty() || superUsers.contains(ctx.session().principal());
        for (ScramCredentialDeletion d : request.deletions()) {
            results.putIfAbsent(d.name(), null);
            Optional<ScramMechanism> m = ScramMechanisms.fromType(d.mechanism());
            Failure invalid = invalid(allowed, d.name(), m);
            if (invalid != null) {
                fail(results, d.name(), invalid);
            } else if (!store.delete(d.name(), m.get())) {
                fail(
                        results,
                        d.name(),
                        new Failure(
                                Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"));
            }
        }
        for (ScramCredentialUpsertion u : request.upsertions()) {
            results.putIfAbsent(u.name(), null);
            Optional<ScramMechanism> m = ScramMechanisms.fromType(u.mechanism());
            Failure invalid = invalid(allowed, u.name(), m);
            if (invalid != null) {
                fail(results, u.name(), invalid);
            } else if (u.iterations() < m.get().minIterations()
                    || u.iterations() > m.get().maxIterations()) {
                fail(
                        results,
                        u.name(),
                        new Failure(
                                Errors.UNACCEPTABLE_CREDENTIAL,
                                "Iterations must be " + m.get().minIterations() + ".."
                                        + m.get().maxIterations() + " for "
                                        + m.get().mechanismName()));
            } else if (u.salt() == null
                    || u.salt().length == 0
                    || u.saltedPassword() == null
                    || u.saltedPassword().length == 0) {
                fail(
                        results,
                        u.name(),
                        new Failure(Errors.UNACCEPTABLE_CREDENTIAL, "Salt and salted password must not be empty"));
            } else {
                try {
                    store.upsert(
                            u.name(),
                            m.get(),
                            new ScramFormatter(m.get())
                                    .generateCredential(u.salt(), u.saltedPassword(), u.iterations()));
                } catch (NoSuchAlgorithmException e) {
                    fail(
                            results,
                            u.name(),
                            new Failure(
                                    Errors.UNSUPPORTED_SASL_MECHANISM, m.get().mechanismName() + " is not available"));
                }
            }
        }
        AlterUserScramCredentialsResponseData response = new AlterUserScramCredentialsResponseData();
        results.forEach((user, f) -> response.results()
                .add(new AlterUserScramCredentialsResult()
                        .setUser(user)
                        .setErrorCode(f == null ? 0 : f.error().code())
                        .setErrorMessage(f == null ? null : f.message())));
        return CompletableFuture.completedFuture(response);
    }

    /** What makes any alteration invalid, deletion or upsertion: who asks, an empty name, an unknown mechanism. */
    private static Failure invalid(boolean allowed, String user, Optional<ScramMechanism> mechanism) {
        if (!allowed) {
            return new Failure(
                    Errors.CLUSTER_AUTHORIZATION_FAILED,
                    "not authorized to alter SCRAM credentials (ALTER on the cluster)");
        }
        if (user.isEmpty()) {
            return new Failure(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty");
        }
        return mechanism.isEmpty() ? new Failure(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism") : null;
    }

    /** A user's result is its first failure. */
    private static void fail(Map<String, Failure> results, String user, Failure failure) {
        if (results.get(user) == null) {
            results.put(user, failure);
        }
    }
}
