package io.kaas.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.KaasBroker;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cli.KaasRun;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.etcd.EtcdServer;
import io.kaas.storage.ExitCodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The offline tools refuse a partition a live broker sharing the directory owns: the lease in etcd, not an OS lock. */
@ExtendWith(EtcdServer.Shared.class)
class OfflineToolsOnSharedDirectoryIT {
    @TempDir
    Path dir;

    @Test
    void aPartitionALiveBrokerOwnsIsRefusedUnlessForcedOrDry(EtcdServer etcd) throws Exception {
        String cid = "offline-" + UUID.randomUUID();
        String coordinator = "etcd://" + etcd.endpoint();
        KaasBroker broker = KaasBroker.create(
                        BrokerConfig.forTest(dir).withClusterId(cid),
                        SecurityConfig.none(),
                        ClusterConfig.parse(coordinator)
                                .withTimings(Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofMillis(500)))
                .start();
        try {
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("t", 2, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> broker.engine().taken().size() == 2);

            KaasRun refused = KaasRun.of(
                    "recover", dir.resolve("t").toString(), "--coordinator", coordinator, "--cluster-id", cid);
            assertThat(refused.exitCode()).isEqualTo(ExitCodes.UNREADABLE);
            assertThat(refused.err()).contains("t-0").contains("owned by live broker 0");
            assertThat(KaasRun.of(
                                    "rebuild-index",
                                    dir.resolve("t").toString(),
                                    "--coordinator",
                                    coordinator,
                                    "--cluster-id",
                                    cid)
                            .exitCode())
                    .isEqualTo(ExitCodes.UNREADABLE);
            assertThat(KaasRun.of(
                                    "recover",
                                    "--dry-run",
                                    dir.resolve("t").toString(),
                                    "--coordinator",
                                    coordinator,
                                    "--cluster-id",
                                    cid)
                            .exitCode())
                    .isEqualTo(ExitCodes.OK);
            assertThat(KaasRun.of(
                                    "recover",
                                    dir.resolve("t").toString(),
                                    "--coordinator",
                                    "etcd://nonsense",
                                    "--cluster-id",
                                    cid)
                            .exitCode())
                    .isEqualTo(ExitCodes.USAGE);
        } finally {
            broker.stop(); // revokes the lease
        }
        KaasRun after =
                KaasRun.of("recover", dir.resolve("t").toString(), "--coordinator", coordinator, "--cluster-id", cid);
        assertThat(after.exitCode()).as(after.err()).isEqualTo(ExitCodes.OK);
    }
}
