package io.kaas.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.security.AclStore;
import io.kaas.storage.layout.ClusterDir;
import io.kaas.storage.testfs.FaultyFileSystem;
import io.kaas.storage.testfs.TornTail;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * {@code __cluster/acls.json} under power cuts (the fault-injecting filesystem keeps only what was
 * fsynced): every CreateAcls/DeleteAcls that returned survives, the file always parses, and a change
 * cut mid-write is all there or not at all.
 */
class AclStorePowerCutTest {
    private static AclBinding acl(int i) {
        return new AclBinding(
                new ResourcePattern(
                        ResourceType.TOPIC, "t-" + i, i % 2 == 0 ? PatternType.LITERAL : PatternType.PREFIXED),
                new AccessControlEntry(
                        "User:u" + i,
                        "*",
                        AclOperation.WRITE,
                        i % 3 == 0 ? AclPermissionType.DENY : AclPermissionType.ALLOW));
    }

    private static Set<AclBinding> bindings(AclStore store) {
        return store.load().values().stream().map(StandardAcl::toBinding).collect(Collectors.toSet());
    }

    @Test
    void answeredChangesSurviveACutIntoANewDataDir() throws Exception {
        FaultyFileSystem fs = FaultyFileSystem.onJimfs();
        Path data = fs.root().resolve("data");
        AclStore store = AclStore.inDataDir(data); // no __cluster yet: the store creates it, durably
        store.create(List.of(acl(1), acl(2), acl(3)));
        store.delete(List.of(acl(2).toFilter()));
        FaultyFileSystem after = fs.powerCut();
        assertThat(bindings(AclStore.inDataDir(after.pathOf(data)))).containsExactlyInAnyOrder(acl(1), acl(3));
        after.close();
    }

    @RepeatedTest(5)
    void aCutWhileAclsAreCreatedKeepsEveryAnsweredOneAndAWholeFile() throws Exception {
        FaultyFileSystem fs = FaultyFileSystem.onJimfs();
        Path data = fs.root().resolve("data");
        AclStore store = AclStore.inDataDir(data);
        Set<AclBinding> answered = ConcurrentHashMap.newKeySet();
        // The one change in flight when the power goes: it may land or not, never half.
        AtomicReference<AclBinding> adding = new AtomicReference<>();
        AtomicReference<AclBinding> removing = new AtomicReference<>();
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "acl-writer"));
        Future<?> writes = writer.submit(() -> {
            for (int i = 0; ; i++) {
                AclBinding b = acl(i);
                adding.set(b);
                if (failed(() ->
                        store.create(List.of(b)).results().get(0).exception().isPresent())) {
                    return; // the power went: not answered as done
                }
                answered.add(b);
                adding.set(null);
                if (i % 4 == 3) {
                    AclBinding old = acl(i - 3); // every fourth step takes an older one back out
                    removing.set(old);
                    if (failed(() -> store.delete(List.of(old.toFilter()))
                            .results()
                            .get(0)
                            .exception()
                            .isPresent())) {
                        return;
                    }
                    answered.remove(old);
                    removing.set(null);
                }
            }
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> answered.size() > 20);
        FaultyFileSystem after = fs.powerCut(TornTail.KEEP_RANDOM_PREFIX, System.nanoTime());
        writes.get(20, TimeUnit.SECONDS);
        writer.shutdown();
        assertThat(writer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        Set<AclBinding> before = Set.copyOf(answered);
        Set<AclBinding> withInFlight = new HashSet<>(before);
        if (adding.get() != null) {
            withInFlight.add(adding.get());
        }
        if (removing.get() != null) {
            withInFlight.remove(removing.get());
        }
        Path file = ClusterDir.acls(ClusterDir.of(after.pathOf(data)));
        Set<AclBinding> survived = bindings(new AclStore(file));
        assertThat(survived).isIn(before, withInFlight);
        after.close();
    }

    /** Runs a store call; true when it failed (an exception, or an error result) because the power went. */
    private static boolean failed(java.util.function.BooleanSupplier errorResult) {
        try {
            return errorResult.getAsBoolean();
        } catch (RuntimeException e) {
            return true;
        }
    }

    @Test
    void aclsDecideAfterReloadAsBefore() {
        // The store is the authorizer's only source: a reload gives Apache's StandardAuthorizer the same bindings.
        FaultyFileSystem fs;
        try {
            fs = FaultyFileSystem.onJimfs();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        AclStore store = AclStore.inDataDir(fs.root().resolve("data"));
        store.create(List.of(acl(1), acl(2)));
        try (AccessControl a = AccessControl.standard(store, Set.of(), false)) {
            assertThat(a.acls(AclBindingFilter.ANY)).containsExactlyInAnyOrder(acl(1), acl(2));
        }
    }
}
