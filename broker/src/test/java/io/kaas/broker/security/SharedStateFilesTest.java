package io.kaas.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.security.AclStore;
import io.kaas.security.ScramCredentialStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * acls.json and credentials.json changed at the same moment by two writers with their own store, as
 * two brokers of a shared directory, or a broker and {@code kaas acl}/{@code kaas user}: no change is
 * lost and every write succeeds.
 */
class SharedStateFilesTest {
    @TempDir
    Path data;

    private static void concurrently(Callable<?> a, Callable<?> b) throws Exception {
        ExecutorService two = Executors.newFixedThreadPool(2, r -> new Thread(r, "shared-state-writer"));
        try {
            List<Future<?>> done = List.of(two.submit(a), two.submit(b));
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            two.shutdownNow();
        }
    }

    private static AclBinding acl(String who, int i) {
        return new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, who + "-" + i, PatternType.LITERAL),
                new AccessControlEntry("User:" + who, "*", AclOperation.READ, AclPermissionType.ALLOW));
    }

    private static Callable<Void> createAcls(AclStore store, String who, List<AclBinding> made) {
        return () -> {
            for (int i = 0; i < 60; i++) {
                AclBinding b = acl(who, i);
                assertThat(store.create(List.of(b)).results().get(0).exception())
                        .isEmpty();
                made.add(b);
            }
            return null;
        };
    }

    @Test
    void twoWritersOfAclsJsonKeepEachOthersAcls() throws Exception {
        AclStore one = AclStore.inDataDir(data);
        AclStore other = AclStore.inDataDir(data);
        List<AclBinding> byOne = new ArrayList<>();
        List<AclBinding> byOther = new ArrayList<>();
        concurrently(createAcls(one, "alice", byOne), createAcls(other, "bob", byOther));
        assertThat(AclStore.inDataDir(data).bindings())
                .hasSize(120)
                .containsAll(byOne)
                .containsAll(byOther);
    }

    @Test
    void twoWritersOfCredentialsJsonKeepEachOthersUsers() throws Exception {
        ScramCredentialStore one = ScramCredentialStore.inDataDir(data);
        ScramCredentialStore other = ScramCredentialStore.inDataDir(data);
        var credential = ScramCredentialStore.generate(ScramMechanism.SCRAM_SHA_256, "secret", 4096);
        concurrently(
                () -> {
                    for (int i = 0; i < 60; i++) {
                        one.upsert("alice-" + i, ScramMechanism.SCRAM_SHA_256, credential);
                    }
                    return null;
                },
                () -> {
                    for (int i = 0; i < 60; i++) {
                        other.upsert("bob-" + i, ScramMechanism.SCRAM_SHA_256, credential);
                    }
                    return null;
                });
        assertThat(ScramCredentialStore.inDataDir(data).describe()).hasSize(120);
        assertThat(one.lookup("bob-59", ScramMechanism.SCRAM_SHA_256))
                .as("seen by the other writer")
                .isPresent();
    }
}
