package io.kaas.broker.config;

import io.kaas.broker.group.ConsumerGroupConfig;
import io.kaas.cluster.Endpoint;
import io.kaas.protocol.SocketBuffers;
import io.kaas.storage.CleanerSettings;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.layout.PlacementRule;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything {@code kaas serve} decides before the broker starts. Each value is a row of the settings table,
 * {@link BrokerSettings} (key, flag, variable, default, rule), resolved by {@link SettingValues}; the checks
 * here are the record's own invariants, for code that builds one directly (tests).
 *
 * @param listeners                where to accept connections
 * @param advertisedListeners      what Metadata tells clients (defaults to the bound listeners)
 * @param brokerId                 node id in Metadata/FindCoordinator
 * @param clusterId                cluster id in Metadata/DescribeCluster
 * @param dataDir                  data directory; ignored when {@code inMemory}
 * @param inMemory                 dev mode: the engine on an in-memory filesystem, nothing survives a stop
 * @param flushIntervalMessages    fsync once this many messages are pending (1 = every acks=all append is fsynced)
 * @param segmentBytes             default segment size (per-topic segment.bytes overrides)
 * @param retentionCheckInterval   how often the retention pass runs; zero disables it
 * @param autoCreateTopics         Metadata/Produce may create unknown topics
 * @param defaultPartitions        partitions of an auto-created topic (and CreateTopics with -1)
 * @param socketRequestMaxBytes    a frame larger than this closes the connection
 * @param requestHandlerThreads    Apache's num.io.threads: threads that run API handlers (never the event loop); they
 *                                 block in the kernel (writeback, a roll's fsync, coordinator state files)
 * @param networkThreads           Apache's num.network.threads: the event loops that read requests and write
 *                                 responses, shared by every listener; they never block
 * @param fetchSessionCacheSlots   Apache's max.incremental.fetch.session.cache.slots: how many incremental fetch
 *                                 sessions (KIP-227) the broker keeps; 0 turns them off
 * @param consumerGroups           the KIP-848 consumer group protocol's settings (group.consumer.*)
 * @param maxOpenFiles             ceiling of segment files the engine holds open; 0 = 40% of the process's file limit
 * @param adminListener            where {@code /metrics}, {@code /healthz} and {@code /readyz} are served; null = none
 * @param metricsPerPartition      export per-partition and per-group-partition series (off for very large brokers)
 * @param cleaner                  the log cleaner of compacted topics (log.cleaner.threads, .dedupe.buffer.size, .io.buffer.size, .backoff.ms)
 * @param socketBuffers            socket.send.buffer.bytes and socket.receive.buffer.bytes of accepted connections
 * @param logDirs                  the volume pool (log.dirs, KIP-112); null: {@code dataDir} alone. Its first dir is
 *                                 {@code dataDir}
 * @param placement                how a new partition's log dir is chosen (kaas.log.dirs.placement)
 */
public record BrokerConfig(
        List<Endpoint> listeners,
        List<Endpoint> advertisedListeners,
        int brokerId,
        String clusterId,
        Path dataDir,
        boolean inMemory,
        long flushIntervalMessages,
        long segmentBytes,
        Duration retentionCheckInterval,
        boolean autoCreateTopics,
        int defaultPartitions,
        int socketRequestMaxBytes,
        int requestHandlerThreads,
        int networkThreads,
        int fetchSessionCacheSlots,
        ConsumerGroupConfig consumerGroups,
        int maxOpenFiles,
        InetSocketAddress adminListener,
        boolean metricsPerPartition,
        CleanerSettings cleaner,
        SocketBuffers socketBuffers,
        LogDirs logDirs,
        PlacementRule placement) {
    /** A fixed default so that restarts without --cluster-id keep the same cluster (what clients cache). */
    public static final String DEFAULT_CLUSTER_ID = "kaas-cluster-0000000001";
    /** Loopback only by default: metrics and health are for the host's agent, not the network. */
    public static final InetSocketAddress DEFAULT_ADMIN_LISTENER =
            InetSocketAddress.createUnresolved("127.0.0.1", 9644);

    public BrokerConfig {
        Objects.requireNonNull(listeners, "listeners");
        if (listeners.isEmpty()) {
            throw new IllegalArgumentException("at least one listener is needed");
        }
        advertisedListeners = advertisedListeners == null ? List.of() : List.copyOf(advertisedListeners);
        listeners = List.copyOf(listeners);
        if (brokerId < 0) {
            throw new IllegalArgumentException("broker id must not be negative, got " + brokerId);
        }
        if (defaultPartitions < 1) {
            throw new IllegalArgumentException("default partitions must be at least 1, got " + defaultPartitions);
        }
        if (socketRequestMaxBytes < 64) {
            throw new IllegalArgumentException("socket.request.max.bytes is too small: " + socketRequestMaxBytes);
        }
        if (requestHandlerThreads < 1) {
            throw new IllegalArgumentException("num.io.threads must be at least 1, got " + requestHandlerThreads);
        }
        if (networkThreads < 1) {
            throw new IllegalArgumentException("num.network.threads must be at least 1, got " + networkThreads);
        }
        if (fetchSessionCacheSlots < 0) {
            throw new IllegalArgumentException(
                    "max.incremental.fetch.session.cache.slots must not be negative, got " + fetchSessionCacheSlots);
        }
        if (retentionCheckInterval.isNegative()) {
            throw new IllegalArgumentException("retention check interval must not be negative");
        }
        if (logDirs != null) {
            dataDir = logDirs.home().path();
        }
        if (!inMemory) {
            Objects.requireNonNull(dataDir, "dataDir");
        }
        placement = placement == null ? PlacementRule.PARTITIONS : placement;
        consumerGroups = consumerGroups == null ? ConsumerGroupConfig.defaults() : consumerGroups;
        cleaner = cleaner == null ? CleanerSettings.DEFAULTS : cleaner;
        socketBuffers = socketBuffers == null ? SocketBuffers.OS_DEFAULTS : socketBuffers;
        if (maxOpenFiles != 0 && maxOpenFiles < 16) {
            throw new IllegalArgumentException(
                    "max open files must be at least 16 (or 0 for the default), got " + maxOpenFiles);
        }
    }

    /**
     * {@code kaas serve} with no arguments: localhost:9092, data in ./kaas-data; every value is the default of
     * its row in {@link BrokerSettings}.
     */
    public static BrokerConfig defaults() {
        return SettingValues.defaults().brokerConfig();
    }

    /** One event loop per core the JVM sees, at least 1 and at most 4. */
    public static int defaultNetworkThreads() {
        return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    }

    /** A broker on an ephemeral loopback port, without an admin listener (tests; they turn it on when they need it). */
    public static BrokerConfig forTest(Path dataDir) {
        return defaults()
                .withListeners(List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 0)))
                .withDataDir(dataDir)
                .withAdminListener(null);
    }

    /** A builder holding these values, to change several at once. */
    public BrokerConfigBuilder toBuilder() {
        return new BrokerConfigBuilder(this);
    }

    public BrokerConfig withListeners(List<Endpoint> v) {
        return toBuilder().listeners(v).build();
    }

    public BrokerConfig withAdvertisedListeners(List<Endpoint> v) {
        return toBuilder().advertisedListeners(v).build();
    }

    public BrokerConfig withBrokerId(int v) {
        return toBuilder().brokerId(v).build();
    }

    public BrokerConfig withClusterId(String v) {
        return toBuilder().clusterId(v).build();
    }

    /** The volume pool: {@link #logDirs} as given, else {@link #dataDir} alone. */
    public LogDirs pool() {
        return logDirs != null ? logDirs : LogDirs.single(dataDir);
    }

    /** Over the pool {@code v}; its first dir becomes the data dir. */
    public BrokerConfig withLogDirs(LogDirs v) {
        return toBuilder().logDirs(v).build();
    }

    public BrokerConfig withDataDir(Path v) {
        return toBuilder().dataDir(v).build();
    }

    public BrokerConfig withInMemory(boolean v) {
        return toBuilder().inMemory(v).build();
    }

    public BrokerConfig withFlushIntervalMessages(long v) {
        return toBuilder().flushIntervalMessages(v).build();
    }

    public BrokerConfig withSegmentBytes(long v) {
        return toBuilder().segmentBytes(v).build();
    }

    public BrokerConfig withRetentionCheckInterval(Duration v) {
        return toBuilder().retentionCheckInterval(v).build();
    }

    public BrokerConfig withAutoCreateTopics(boolean v) {
        return toBuilder().autoCreateTopics(v).build();
    }

    public BrokerConfig withDefaultPartitions(int v) {
        return toBuilder().defaultPartitions(v).build();
    }

    public BrokerConfig withSocketRequestMaxBytes(int v) {
        return toBuilder().socketRequestMaxBytes(v).build();
    }

    public BrokerConfig withRequestHandlerThreads(int v) {
        return toBuilder().requestHandlerThreads(v).build();
    }

    public BrokerConfig withNetworkThreads(int v) {
        return toBuilder().networkThreads(v).build();
    }

    public BrokerConfig withFetchSessionCacheSlots(int v) {
        return toBuilder().fetchSessionCacheSlots(v).build();
    }

    public BrokerConfig withConsumerGroups(ConsumerGroupConfig v) {
        return toBuilder().consumerGroups(v).build();
    }

    public BrokerConfig withMaxOpenFiles(int v) {
        return toBuilder().maxOpenFiles(v).build();
    }

    public BrokerConfig withAdminListener(InetSocketAddress v) {
        return toBuilder().adminListener(v).build();
    }

    public BrokerConfig withMetricsPerPartition(boolean v) {
        return toBuilder().metricsPerPartition(v).build();
    }

    public BrokerConfig withCleaner(CleanerSettings v) {
        return toBuilder().cleaner(v).build();
    }

    public BrokerConfig withSocketBuffers(SocketBuffers v) {
        return toBuilder().socketBuffers(v).build();
    }
}
