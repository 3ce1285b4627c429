package io.kaas.broker.config;

import io.kaas.broker.fetch.FetchSessionCache;
import io.kaas.broker.group.ConsumerGroupConfig;
import io.kaas.cluster.Endpoint;
import io.kaas.protocol.SocketBuffers;
import io.kaas.storage.CleanerSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything {@code kaas serve} decides before the broker starts.
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
 *                                 block in the kernel (page-cache writes under writeback, a roll's fsync, topic
 *                                 creation, coordinator state files), so the default is Apache's 8, not the cores
 * @param networkThreads           Apache's num.network.threads: the event loops that read requests and write
 *                                 responses, shared by every listener; they never block, so more than one per core
 *                                 only adds thread switches (default: the cores, 1 to 4)
 * @param fetchSessionCacheSlots   Apache's max.incremental.fetch.session.cache.slots: how many incremental fetch
 *                                 sessions (KIP-227) the broker keeps; 0 turns them off
 * @param consumerGroups           the KIP-848 consumer group protocol's settings (group.consumer.*)
 * @param maxOpenFiles             ceiling of segment files the engine holds open; 0 = 40% of the process's file limit
 * @param adminListener            where {@code /metrics}, {@code /healthz} and {@code /readyz} are served; null = none
 * @param metricsPerPartition      export per-partition and per-group-partition series (off for very large brokers)
 * @param cleaner                  the log cleaner of compacted topics (log.cleaner.threads, .dedupe.buffer.size, .io.buffer.size, .backoff.ms)
 * @param socketBuffers            socket.send.buffer.bytes and socket.receive.buffer.bytes of accepted connections
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
        SocketBuffers socketBuffers) {
    public static final int DEFAULT_SOCKET_REQUEST_MAX_BYTES = 100 * 1024 * 1024;
    /** Apache's num.io.threads default. */
    public static final int DEFAULT_REQUEST_HANDLER_THREADS = 8;

    public static final Duration DEFAULT_RETENTION_CHECK_INTERVAL = Duration.ofSeconds(300);
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
        if (!inMemory) {
            Objects.requireNonNull(dataDir, "dataDir");
        }
        consumerGroups = consumerGroups == null ? ConsumerGroupConfig.defaults() : consumerGroups;
        cleaner = cleaner == null ? CleanerSettings.DEFAULTS : cleaner;
        socketBuffers = socketBuffers == null ? SocketBuffers.OS_DEFAULTS : socketBuffers;
        if (maxOpenFiles != 0 && maxOpenFiles < 16) {
            throw new IllegalArgumentException(
                    "max open files must be at least 16 (or 0 for the default), got " + maxOpenFiles);
        }
    }

    /** {@code kaas serve} with no arguments: localhost:9092, data in ./kaas-data. */
    public static BrokerConfig defaults() {
        return new BrokerConfig(
                List.of(new Endpoint("PLAINTEXT", "localhost", 9092)),
                List.of(),
                0,
                DEFAULT_CLUSTER_ID,
                Path.of("kaas-data"),
                false,
                1,
                1L << 30,
                DEFAULT_RETENTION_CHECK_INTERVAL,
                true,
                1,
                DEFAULT_SOCKET_REQUEST_MAX_BYTES,
                DEFAULT_REQUEST_HANDLER_THREADS,
                defaultNetworkThreads(),
                FetchSessionCache.DEFAULT_SLOTS,
                ConsumerGroupConfig.defaults(),
                0,
                DEFAULT_ADMIN_LISTENER,
                true,
                CleanerSettings.DEFAULTS,
                SocketBuffers.OS_DEFAULTS);
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

    public BrokerConfig withListeners(List<Endpoint> v) {
        return new BrokerConfig(
                v,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withAdvertisedListeners(List<Endpoint> v) {
        return new BrokerConfig(
                listeners,
                v,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withBrokerId(int v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                v,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withClusterId(String v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                v,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withDataDir(Path v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                v,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withInMemory(boolean v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                v,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withFlushIntervalMessages(long v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                v,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withSegmentBytes(long v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                v,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withRetentionCheckInterval(Duration v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                v,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withAutoCreateTopics(boolean v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                v,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withDefaultPartitions(int v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                v,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withSocketRequestMaxBytes(int v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                v,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withRequestHandlerThreads(int v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                v,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withNetworkThreads(int v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                v,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withFetchSessionCacheSlots(int v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                v,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withConsumerGroups(ConsumerGroupConfig v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                v,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withMaxOpenFiles(int v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                v,
                adminListener,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withAdminListener(InetSocketAddress v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                v,
                metricsPerPartition,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withMetricsPerPartition(boolean v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                v,
                cleaner,
                socketBuffers);
    }

    public BrokerConfig withSocketBuffers(SocketBuffers v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                cleaner,
                v);
    }

    public BrokerConfig withCleaner(CleanerSettings v) {
        return new BrokerConfig(
                listeners,
                advertisedListeners,
                brokerId,
                clusterId,
                dataDir,
                inMemory,
                flushIntervalMessages,
                segmentBytes,
                retentionCheckInterval,
                autoCreateTopics,
                defaultPartitions,
                socketRequestMaxBytes,
                requestHandlerThreads,
                networkThreads,
                fetchSessionCacheSlots,
                consumerGroups,
                maxOpenFiles,
                adminListener,
                metricsPerPartition,
                v,
                socketBuffers);
    }
}
