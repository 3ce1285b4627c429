package io.kaas.broker;

import io.kaas.broker.admin.AdminServer;
import io.kaas.broker.admin.Readiness;
import io.kaas.broker.admin.StartupRecovery;
import io.kaas.broker.api.DeleteGroupsHandler;
import io.kaas.broker.api.DescribeGroupsHandler;
import io.kaas.broker.api.FindCoordinatorHandler;
import io.kaas.broker.api.HeartbeatHandler;
import io.kaas.broker.api.JoinGroupHandler;
import io.kaas.broker.api.LeaveGroupHandler;
import io.kaas.broker.api.ListGroupsHandler;
import io.kaas.broker.api.OffsetCommitHandler;
import io.kaas.broker.api.OffsetDeleteHandler;
import io.kaas.broker.api.OffsetFetchHandler;
import io.kaas.broker.api.SyncGroupHandler;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.api.ApiVersionsHandler;
import io.kaas.broker.api.CreatePartitionsHandler;
import io.kaas.broker.api.CreateTopicsHandler;
import io.kaas.broker.api.DeleteRecordsHandler;
import io.kaas.broker.api.DeleteTopicsHandler;
import io.kaas.broker.api.DescribeClusterHandler;
import io.kaas.broker.api.DescribeConfigsHandler;
import io.kaas.broker.api.DescribeLogDirsHandler;
import io.kaas.broker.api.DescribeTopicPartitionsHandler;
import io.kaas.broker.api.FetchHandler;
import io.kaas.broker.api.IncrementalAlterConfigsHandler;
import io.kaas.broker.api.InitProducerIdHandler;
import io.kaas.broker.api.ListOffsetsHandler;
import io.kaas.broker.api.MetadataHandler;
import io.kaas.broker.api.OffsetForLeaderEpochHandler;
import io.kaas.broker.api.ProduceHandler;
import io.kaas.broker.api.ServedApis;
import io.kaas.broker.api.TopicConfigView;
import io.kaas.broker.cluster.BrokerNode;
import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.metrics.BrokerMetrics;
import io.kaas.broker.net.KafkaServer;
import io.kaas.broker.net.RequestInvoker;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.MemoryStorageEngine;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.layout.ClusterDir;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka-compatible broker: a {@link StorageEngine} behind Kafka's wire protocol. Owns, and stops
 * in {@link #stop()}, every thread it starts:
 * <ul>
 *   <li>{@code kaas-acceptor}, {@code kaas-network-*}: Netty event loops (decode, encode, never block);
 *   <li>{@code kaas-request-handler-*}: run API handlers (file I/O allowed, no waiting on fsyncs);
 *   <li>{@code kaas-timer}: Fetch long-poll deadlines and group-coordinator timers;
 *   <li>{@code kaas-retention}: the periodic retention pass;
 *   <li>{@code kaas-startup-recovery}: opens every partition once at start ({@link StartupRecovery});
 *   <li>{@code kaas-admin-http-*}: the admin listener ({@code /metrics}, {@code /healthz}, {@code /readyz}).
 * </ul>
 * The engine is handed in and closed by {@link #stop()}.
 */
public final class KaasBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KaasBroker.class);
    private static final long DRAIN_TIMEOUT_MS = 10_000;

    private final BrokerConfig config;
    private final StorageEngine engine;
    private final BrokerMetrics metrics;
    private final StartupRecovery recovery;
    private final AtomicReference<BrokerNode> node = new AtomicReference<>();
    private final List<InetSocketAddress> bound = new ArrayList<>();
    private KafkaServer server;
    private GroupCoordinator groups;
    private ExecutorService handlerPool;
    private ScheduledExecutorService timer;
    private ScheduledExecutorService retention;
    private AdminServer admin;
    private volatile boolean listenersBound;
    private boolean started;
    private boolean stopped;

    /** A broker over {@code engine}; its metrics then lack what only the engine sees (fsyncs, opens, storage errors). */
    public KaasBroker(BrokerConfig config, StorageEngine engine) {
        this(config, engine, new BrokerMetrics(config.metricsPerPartition()));
    }

    /** A broker over {@code engine}, which was built with {@code metrics.engine()} as its observer. */
    public KaasBroker(BrokerConfig config, StorageEngine engine, BrokerMetrics metrics) {
        this.config = config;
        this.engine = engine;
        this.metrics = metrics;
        this.recovery = new StartupRecovery(engine);
    }

    /** A broker over the engine {@code config} asks for: on disk under its data dir, or in memory. */
    public static KaasBroker create(BrokerConfig config) {
        Path dir = config.inMemory() ? Path.of("kaas-memory") : config.dataDir();
        EngineConfig engineConfig = EngineConfig.defaults(dir)
                .withSegmentBytes(config.segmentBytes())
                .withFlushIntervalMessages(config.flushIntervalMessages());
        BrokerMetrics metrics = new BrokerMetrics(config.metricsPerPartition());
        EngineEventLog observer = new EngineEventLog(metrics.engine());
        StorageEngine engine = config.inMemory() ? new MemoryStorageEngine(engineConfig, observer)
                : new DiskStorageEngine(engineConfig, observer);
        return new KaasBroker(config, engine, metrics);
    }

    public synchronized KaasBroker start() {
        if (started) {
            throw new IllegalStateException("broker already started");
        }
        started = true;
        if (config.adminListener() != null) {
            // First, so a taken admin port fails the start before anything else is bound or started.
            try {
                admin = AdminServer.start(config.adminListener(), metrics.registry(), new Readiness(() -> listenersBound, recovery, engine));
            } catch (RuntimeException e) {
                stop();
                throw e;
            }
        }
        handlerPool = Executors.newFixedThreadPool(config.requestHandlerThreads(), new DefaultThreadFactory("kaas-request-handler"));
        timer = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-timer", true));
        Path clusterDir = ClusterDir.of(engine.dataDir());
        try {
            Files.createDirectories(clusterDir);
        } catch (IOException e) {
            throw new UncheckedIOException(clusterDir + ": cannot create the cluster state directory", e);
        }
        TopicCatalog topics = new TopicCatalog(engine, config.autoCreateTopics(), config.defaultPartitions());
        TopicConfigView topicConfigs = new TopicConfigView(config);
        ServedApis served = new ServedApis();
        RequestInvoker invoker = new RequestInvoker(served, handlerPool, metrics.requests());
        groups = new GroupCoordinator(clusterDir, timer);
        registerApis(invoker, topics, topicConfigs, new ProducerIdAllocator(clusterDir));
        server = new KafkaServer(Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())));
        try {
            for (Endpoint listener : config.listeners()) {
                bound.add(server.bind(listener, served, invoker, config.socketRequestMaxBytes()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding listeners", e);
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
        Endpoint advertised = advertised();
        node.set(new BrokerNode(config.brokerId(), advertised.host(), advertised.port(), config.clusterId()));
        metrics.watch(engine, groups, server);
        listenersBound = true;
        recovery.start();
        startRetention();
        LOG.info("kaas broker {} listening on {} (advertised {}), data in {}{}", config.brokerId(), bound, advertised,
                config.inMemory() ? "memory" : engine.dataDir().toAbsolutePath().normalize(),
                admin == null ? "" : ", admin listener on " + admin.address());
        return this;
    }

    private void registerApis(RequestInvoker invoker, TopicCatalog topics, TopicConfigView topicConfigs,
                              ProducerIdAllocator producerIds) {
        invoker.register(ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS.latestVersion(), new ApiVersionsHandler(invoker.served()));
        invoker.register(ApiKeys.METADATA, ApiKeys.METADATA.latestVersion(), new MetadataHandler(topics, node::get));
        invoker.register(ApiKeys.PRODUCE, ApiKeys.PRODUCE.latestVersion(), new ProduceHandler(topics, metrics.traffic()));
        invoker.register(ApiKeys.FETCH, ApiKeys.FETCH.latestVersion(), new FetchHandler(topics, timer, handlerPool, metrics.traffic()));
        invoker.register(ApiKeys.LIST_OFFSETS, ApiKeys.LIST_OFFSETS.latestVersion(), new ListOffsetsHandler(topics));
        invoker.register(ApiKeys.INIT_PRODUCER_ID, ApiKeys.INIT_PRODUCER_ID.latestVersion(), new InitProducerIdHandler(producerIds));
        invoker.register(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.latestVersion(), new CreateTopicsHandler(topics, topicConfigs, config.brokerId()));
        invoker.register(ApiKeys.DELETE_TOPICS, ApiKeys.DELETE_TOPICS.latestVersion(), new DeleteTopicsHandler(topics));
        invoker.register(ApiKeys.CREATE_PARTITIONS, ApiKeys.CREATE_PARTITIONS.latestVersion(), new CreatePartitionsHandler(topics));
        invoker.register(ApiKeys.DELETE_RECORDS, ApiKeys.DELETE_RECORDS.latestVersion(), new DeleteRecordsHandler(topics));
        invoker.register(ApiKeys.DESCRIBE_CONFIGS, ApiKeys.DESCRIBE_CONFIGS.latestVersion(), new DescribeConfigsHandler(topics, topicConfigs, config));
        invoker.register(ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS.latestVersion(), new IncrementalAlterConfigsHandler(topics));
        invoker.register(ApiKeys.DESCRIBE_CLUSTER, ApiKeys.DESCRIBE_CLUSTER.latestVersion(), new DescribeClusterHandler(node::get));
        invoker.register(ApiKeys.DESCRIBE_LOG_DIRS, ApiKeys.DESCRIBE_LOG_DIRS.latestVersion(), new DescribeLogDirsHandler(topics));
        invoker.register(ApiKeys.OFFSET_FOR_LEADER_EPOCH, ApiKeys.OFFSET_FOR_LEADER_EPOCH.latestVersion(), new OffsetForLeaderEpochHandler(topics));
        invoker.register(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, ApiKeys.DESCRIBE_TOPIC_PARTITIONS.latestVersion(), new DescribeTopicPartitionsHandler(topics, config.brokerId()));
        invoker.register(ApiKeys.FIND_COORDINATOR, ApiKeys.FIND_COORDINATOR.latestVersion(), new FindCoordinatorHandler(node::get));
        invoker.register(ApiKeys.JOIN_GROUP, ApiKeys.JOIN_GROUP.latestVersion(), new JoinGroupHandler(groups));
        invoker.register(ApiKeys.SYNC_GROUP, ApiKeys.SYNC_GROUP.latestVersion(), new SyncGroupHandler(groups));
        invoker.register(ApiKeys.HEARTBEAT, ApiKeys.HEARTBEAT.latestVersion(), new HeartbeatHandler(groups));
        invoker.register(ApiKeys.LEAVE_GROUP, ApiKeys.LEAVE_GROUP.latestVersion(), new LeaveGroupHandler(groups));
        invoker.register(ApiKeys.OFFSET_COMMIT, OffsetCommitHandler.MAX_VERSION, new OffsetCommitHandler(groups, topics));
        invoker.register(ApiKeys.OFFSET_FETCH, OffsetFetchHandler.MAX_VERSION, new OffsetFetchHandler(groups));
        invoker.register(ApiKeys.LIST_GROUPS, ApiKeys.LIST_GROUPS.latestVersion(), new ListGroupsHandler(groups));
        invoker.register(ApiKeys.DESCRIBE_GROUPS, ApiKeys.DESCRIBE_GROUPS.latestVersion(), new DescribeGroupsHandler(groups));
        invoker.register(ApiKeys.DELETE_GROUPS, ApiKeys.DELETE_GROUPS.latestVersion(), new DeleteGroupsHandler(groups));
        invoker.register(ApiKeys.OFFSET_DELETE, ApiKeys.OFFSET_DELETE.latestVersion(), new OffsetDeleteHandler(groups));
    }

    /** The first advertised listener, or the first bound one (with its real port; 0.0.0.0 → localhost). */
    private Endpoint advertised() {
        if (!config.advertisedListeners().isEmpty()) {
            return config.advertisedListeners().get(0);
        }
        Endpoint first = config.listeners().get(0);
        String host = first.host().isEmpty() || first.host().equals("0.0.0.0") ? "localhost" : first.host();
        return new Endpoint(first.listenerName(), host, bound.get(0).getPort());
    }

    private void startRetention() {
        long intervalMs = config.retentionCheckInterval().toMillis();
        if (intervalMs <= 0) {
            LOG.info("retention checks disabled");
            return;
        }
        retention = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-retention", true));
        retention.scheduleWithFixedDelay(this::runRetention, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    private void runRetention() {
        try {
            int removed = engine.runRetention(System.currentTimeMillis());
            metrics.retentionRan(removed);
            if (removed > 0) {
                LOG.info("retention removed {} segments", removed);
            }
        } catch (RuntimeException e) {
            LOG.warn("retention pass failed", e);
        }
    }

    /** The port the first listener is bound to (the OS's choice when 0 was asked for). */
    public synchronized int boundPort() {
        if (bound.isEmpty()) {
            throw new IllegalStateException("broker is not started");
        }
        return bound.get(0).getPort();
    }

    /** {@code host:port} for a client's bootstrap.servers. */
    public String bootstrapServers() {
        BrokerNode n = node.get();
        return n.host() + ":" + n.port();
    }

    /** Where the admin listener is bound (the real port when 0 was asked for), or null when it is off. */
    public synchronized InetSocketAddress adminAddress() {
        return admin == null ? null : admin.address();
    }

    public BrokerMetrics metrics() {
        return metrics;
    }

    public StorageEngine engine() {
        return engine;
    }

    public BrokerConfig config() {
        return config;
    }

    /**
     * Clean shutdown: stop accepting, stop reading, answer requests in flight, stop the timers and
     * handler threads, then close the engine (fsync, manifests, checkpoints at EOF, locks released).
     * Idempotent.
     */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        LOG.info("kaas broker {} stopping", config.brokerId());
        listenersBound = false;
        try {
            // Before the engine closes: a partition half-opened by it would keep its lock.
            recovery.stop(DRAIN_TIMEOUT_MS);
            if (server != null) {
                server.stopAccepting();
                if (groups != null) {
                    // Members parked in JoinGroup/SyncGroup would otherwise hold shutdown for a rebalance timeout.
                    groups.shutdown();
                }
                server.drainAndClose(DRAIN_TIMEOUT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (retention != null) {
            retention.shutdownNow();
        }
        if (timer != null) {
            timer.shutdownNow();
        }
        if (handlerPool != null) {
            handlerPool.shutdown();
            try {
                handlerPool.awaitTermination(DRAIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        engine.close();
        if (admin != null) {
            admin.close();
        }
        LOG.info("kaas broker {} stopped", config.brokerId());
    }

    @Override
    public void close() {
        stop();
    }
}
