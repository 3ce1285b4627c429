package io.kaas.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.security.AclStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code __cluster/acls.json} under {@code kill -9}: a broker with Apache's StandardAuthorizer takes
 * CreateAcls and DeleteAcls one after the other until it is killed at a random moment; after each
 * restart every answered change is in force (DescribeAcls), the one in flight is whole or absent, and
 * the file parses. {@code -Dkaas.crash.seed=S} replays one run.
 */
class AclCrashIT {
    private static final int CYCLES = 3;

    private static AclBinding acl(int i) {
        return new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, "crash-" + i, PatternType.LITERAL),
                new AccessControlEntry("User:u" + i, "*", AclOperation.READ, AclPermissionType.ALLOW));
    }

    @Test
    void answeredAclChangesSurviveKillNine(@TempDir Path dir) throws Exception {
        long seed = Long.getLong("kaas.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path data = dir.resolve("data");
        Path config = dir.resolve("server.properties");
        // PLAINTEXT clients are User:ANONYMOUS: make it the super user so the test's Admin may manage ACLs.
        Files.writeString(
                config,
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer\n"
                        + "super.users=User:ANONYMOUS\n");
        Set<AclBinding> answered = ConcurrentHashMap.newKeySet();
        int next = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            String context = "cycle " + cycle + " (seed " + seed + ")";
            AtomicReference<AclBinding> adding = new AtomicReference<>();
            AtomicReference<AclBinding> removing = new AtomicReference<>();
            try (BrokerProcess broker = BrokerProcess.start(
                            data, dir.resolve("serve-" + cycle + ".log"), 1 << 20, "--config", config.toString());
                    Admin admin = Admin.create(CrashClients.admin(broker))) {
                Set<AclBinding> inForce = new HashSet<>(
                        admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS));
                // Exactly what the file held after the last kill (checked below) is in force.
                assertThat(inForce).as(context).isEqualTo(answered);

                int first = next;
                ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "acl-crash-writer"));
                Future<?> writes = writer.submit(() -> {
                    for (int i = first; ; i++) {
                        AclBinding b = acl(i);
                        adding.set(b);
                        try {
                            admin.createAcls(List.of(b)).all().get(30, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            return; // the kill
                        }
                        answered.add(b);
                        adding.set(null);
                        if (i % 3 == 2) {
                            AclBinding old = acl(i - 2);
                            removing.set(old);
                            try {
                                admin.deleteAcls(List.of(old.toFilter())).all().get(30, TimeUnit.SECONDS);
                            } catch (Exception e) {
                                return;
                            }
                            answered.remove(old);
                            removing.set(null);
                        }
                    }
                });
                // A random moment: after a random number of answered changes, wherever the writer then is.
                int target = answered.size() + 5 + random.nextInt(40);
                org.awaitility.Awaitility.await()
                        .atMost(java.time.Duration.ofSeconds(60))
                        .until(() -> answered.size() >= target || writes.isDone());
                broker.kill();
                admin.close(java.time.Duration.ZERO); // fails the call in flight now instead of after its retries
                writer.shutdownNow();
                writes.get(60, TimeUnit.SECONDS);
                assertThat(writer.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
                next = first + 1000;
            }
            AclBinding inFlight = adding.get() != null ? adding.get() : removing.get();
            Set<AclBinding> onDisk = new HashSet<>(AclStore.inDataDir(data).bindings());
            Set<AclBinding> withInFlight = new HashSet<>(answered);
            if (adding.get() != null) {
                withInFlight.add(adding.get());
            }
            if (removing.get() != null) {
                withInFlight.remove(removing.get());
            }
            System.out.printf("acl-crash: %s: %d answered, in flight %s%n", context, answered.size(), inFlight);
            assertThat(onDisk).as(context).isIn(Set.copyOf(answered), withInFlight);
            answered.clear();
            answered.addAll(onDisk); // the change in flight, whichever way it went, is settled now
        }
    }
}
