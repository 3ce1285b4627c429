package io.kaas.broker;

import io.kaas.broker.admin.AdminServer;
import io.kaas.broker.admin.Readiness;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.config.TopicConfigView;
import io.kaas.broker.feature.FinalizedFeatures;
import io.kaas.broker.metrics.BrokerMetrics;
import io.kaas.broker.quota.ClientQuotaStore;
import io.kaas.broker.quota.ClientQuotas;
import io.kaas.broker.quota.Throttling;
import io.kaas.broker.security.AccessControl;
import io.kaas.broker.security.InterBrokerListener;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.broker.telemetry.ClientTelemetry;
import io.kaas.broker.txn.TransactionConfig;
import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.BrokerRegistration;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.ClusterMember;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.Endpoint;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.cluster.PartitionPins;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.RequestInvoker;
import io.kaas.protocol.ServedApis;
import io.kaas.security.AclStore;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka-compatible broker: a {@link StorageEngine} behind Kafka's wire protocol. Owns, and stops
 * in {@link #stop()}, every thread it starts:
 * <ul>
 *   <li>{@code kaas-acceptor}, {@code kaas-network-*}: Netty event loops (decode, encode, never block);
 *   <li>{@code kaas-request-handler-*}: run API handlers (file I/O allowed, no waiting on fsyncs);
 *   <li>{@code kaas-timer}: Fetch long-poll deadlines and group-coordinator timers;
 *   <li>{@code kaas-retention}: the periodic retention pass ({@link RetentionSchedule});
 *   <li>{@code kaas-txn-coordinator}: the transaction timeout sweep, id expiration and completions; {@code kaas-txn-marker-sync-*}: marker fsyncs ({@link TransactionCoordinator}).
 *   <li>{@code kaas-admin-http-*}: the admin listener ({@code /metrics}, {@code /healthz}, {@code /readyz}).
 *   <li>{@code kaas-lease}, {@code kaas-cluster}: with a coordinator, the lease renewals and the reconciles
 *       ({@link ClusterMember}), stopped after the engine closed.
 * </ul>
 * The engine is handed in and closed by {@link #stop()}.
 */
public final class KaasBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KaasBroker.class);
    /** How long the stop waits for the request handlers to finish. */
    private static final long DRAIN_TIMEOUT_MS = 10_000;

    private final BrokerConfig config;
    private final SecurityConfig security;
    private final StorageEngine engine;
    private final BrokerMetrics metrics;
    /** Everything start() started, stopped in reverse by stop() or by a start that fails. */
    private final StartedResources started = new StartedResources();
    /** Set once the listeners are bound. */
    private volatile KafkaListeners listeners;

    private TransactionConfig transactionConfig = TransactionConfig.DEFAULTS;

    private AdminServer admin;
    /** Several brokers over one shared directory: how to join; null for a broker on its own. */
    private ClusterConfig clusterConfig;

    private volatile ClusterMember member;
    private volatile AccessControl access = AccessControl.none();
    private volatile boolean listenersBound;
    private boolean starting;
    private boolean stopped;
    /** Completes once the broker stopped because its engine's home log dir failed. */
    private final CompletableFuture<StorageException> failed = new CompletableFuture<>();

    /** A broker over {@code engine}; its metrics then lack what only the engine sees (fsyncs, opens, storage errors). */
    public KaasBroker(BrokerConfig config, StorageEngine engine) {
        this(config, SecurityConfig.none(), engine, new BrokerMetrics(config.metricsPerPartition()));
    }

    /** A broker over {@code engine}, which was built with {@code metrics.engine()} as its observer. */
    public KaasBroker(BrokerConfig config, StorageEngine engine, BrokerMetrics metrics) {
        this(config, SecurityConfig.none(), engine, metrics);
    }

    public KaasBroker(BrokerConfig config, SecurityConfig security, StorageEngine engine) {
        this(config, security, engine, new BrokerMetrics(config.metricsPerPartition()));
    }

    public KaasBroker(BrokerConfig config, SecurityConfig security, StorageEngine engine, BrokerMetrics metrics) {
        this.config = config;
        this.security = security;
        this.engine = engine;
        this.metrics = metrics;
        // Handed in, so stopped here even when start() never ran or failed; stopped last of all.
        started.add("the engine and the membership it writes under", this::closeEngineThenMembership);
    }

    /** A broker over the engine {@code config} asks for: on disk under its data dir, or in memory. */
    public static KaasBroker create(BrokerConfig config) {
        return create(config, SecurityConfig.none());
    }

    /** {@link #create(BrokerConfig)} with TLS/SASL listeners as {@code security} describes. */
    public static KaasBroker create(BrokerConfig config, SecurityConfig security) {
        BrokerMetrics metrics = new BrokerMetrics(config.metricsPerPartition());
        return new KaasBroker(config, security, BrokerEngines.ownDirectory(config, metrics), metrics);
    }

    /**
     * A broker that shares its data directory with others, coordinated by a coordination store (etcd or Kubernetes): its engine is
     * {@link DiskStorageEngine#shared}; {@link #start} fails with a {@link CoordinationException} when etcd
     * is unreachable or a live broker already has this id.
     */
    public static KaasBroker create(BrokerConfig config, SecurityConfig security, ClusterConfig cluster) {
        if (cluster == null) {
            return create(config, security);
        }
        if (config.inMemory()) {
            throw new IllegalArgumentException("--coordinator needs a shared data directory, not --in-memory");
        }
        BrokerMetrics metrics = new BrokerMetrics(config.metricsPerPartition());
        KaasBroker broker = new KaasBroker(config, security, BrokerEngines.sharedDirectory(config, metrics), metrics);
        broker.clusterConfig = cluster;
        return broker;
    }

    /** This broker's membership when it shares its directory with others, else null. */
    public ClusterMember clusterMember() {
        return member;
    }

    /** Transaction coordinator settings (before {@link #start}); Apache's defaults otherwise. */
    public synchronized KaasBroker withTransactionConfig(TransactionConfig v) {
        if (starting) {
            throw new IllegalStateException("broker already started");
        }
        transactionConfig = v;
        return this;
    }

    /**
     * Starts the broker: the admin listener, the membership's store connection, the handler threads, the
     * coordinators, the listeners, then (with a coordinator) joins the cluster. Each step registers how to stop what
     * it started; when one fails, everything started before it is stopped, in reverse, and the failure is thrown
     * with any failures to stop suppressed in it.
     */
    public synchronized KaasBroker start() {
        if (starting) {
            throw new IllegalStateException("broker already started");
        }
        starting = true;
        try {
            startInOrder();
        } catch (Throwable t) {
            // Throwable: Netty rethrows a failed bind's IOException undeclared, past a catch of RuntimeException.
            started.stopAllAfter(t);
            throw t;
        }
        engine.homeDirFailed().thenAccept(this::stopAfterHomeDirFailed);
        return this;
    }

    /**
     * The home log dir (holding {@code __cluster/}) failed: the broker cannot go on, as Apache's halts when its
     * metadata log dir fails. Stopped on a thread of its own (the failure is reported on an engine thread, which the
     * stop waits for); {@link #failed} completes after.
     */
    private void stopAfterHomeDirFailed(StorageException e) {
        LOG.error("kaas broker {} stops: {}", config.brokerId(), e.getMessage());
        Thread t = new Thread(
                () -> {
                    try {
                        stop();
                    } catch (RuntimeException stopFailed) {
                        LOG.error(
                                "kaas broker {}: stop after the home dir failed: {}",
                                config.brokerId(),
                                stopFailed.toString());
                    } finally {
                        failed.complete(e);
                    }
                },
                "kaas-broker-stop-home-dir-failed");
        t.start();
    }

    /** Completes once the broker stopped because its home log dir failed (the process should exit non-zero). */
    public CompletableFuture<StorageException> failed() {
        return failed;
    }

    private void startInOrder() {
        // Before anything is bound: a bad inter-broker setting is a configuration error naming its key.
        InterBrokerListener interBroker = InterBrokerListener.resolve(
                security, config.listeners(), config.advertisedListeners(), clusterConfig != null);
        if (config.adminListener() != null) {
            // First, so a taken admin port fails the start before anything else is bound or started.
            admin = AdminServer.start(
                    config.adminListener(), metrics.registry(), new Readiness(() -> listenersBound, engine));
            started.add("the admin listener", admin::close);
        }
        ClusterStore store = null;
        if (clusterConfig != null) {
            store = clusterConfig.connect(config.clusterId());
            // Closed (with the store) after the engine, by the engine's entry.
            member = new ClusterMember(store, clusterConfig, engine, System::nanoTime);
        }
        Path clusterDir = ClusterDir.of(engine.dataDir());
        try {
            // Durably created: offsets, credentials, ACLs and transaction state written into it must survive a power
            // cut.
            io.kaas.storage.io.AtomicFile.createDirectories(clusterDir);
        } catch (IOException e) {
            throw new UncheckedIOException(clusterDir + ": cannot create the cluster state directory", e);
        }
        ClientQuotas quotas =
                new ClientQuotas(new ClientQuotaStore(ClusterDir.clientQuotas(clusterDir)), security.quotaWindow());
        started.add("the client quotas", quotas::close);
        access = security.accessControl(new AclStore(ClusterDir.acls(clusterDir)));
        started.add("the access control", access::close);
        ExecutorService handlerPool = Executors.newFixedThreadPool(
                config.requestHandlerThreads(), new DefaultThreadFactory("kaas-request-handler"));
        started.add("the request handler threads", () -> {
            handlerPool.shutdown();
            handlerPool.awaitTermination(DRAIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        });
        ScheduledExecutorService timer =
                Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-timer", true));
        started.add("the timer thread", timer::shutdownNow);
        TopicCatalog topics = new TopicCatalog(engine, config.autoCreateTopics(), config.defaultPartitions());
        if (member != null) {
            // A dead owner's lease expires within the TTL: wait up to two for the owners to let go before answering.
            ClusterMember m = member;
            java.time.Duration wait = clusterConfig.leaseTtl().multipliedBy(2);
            topics.deleteThrough(name -> m.deleteTopic(name, wait));
        }
        Coordinators c = Coordinators.start(
                new Coordinators.Setting(config, security, interBroker, transactionConfig),
                clusterDir,
                timer,
                topics,
                store,
                member,
                this::node,
                started);
        Throttling throttling = new Throttling(quotas);
        // A handler that appended fsyncs its last partition itself before taking the next request (no committer
        // wake-up).
        ServedApis served = new ServedApis();
        RequestInvoker invoker = new RequestInvoker(served, engine.fsyncingAfterTasks(handlerPool), metrics.requests());
        invoker.authorizeWith(access);
        invoker.throttleWith(throttling);
        // kafka-reassign-partitions: a move is a pin in the shared cluster's assignment (kaas assign's); alone, nothing
        // moves.
        PartitionPins pins = store == null ? null : new PartitionPins(store);
        FinalizedFeatures features =
                new FinalizedFeatures(ClusterDir.features(clusterDir), config.brokerId(), transactionConfig.version());
        ClientTelemetry telemetry = new ClientTelemetry(ClusterDir.clientMetrics(clusterDir), metrics.registry());
        started.add("the client telemetry", telemetry::close);
        ApiHandlers.registerAll(
                invoker,
                new ApiHandlers.Parts(
                        config,
                        security,
                        metrics,
                        topics,
                        new TopicConfigView(config),
                        c.producerIds(),
                        throttling,
                        quotas,
                        c.transactions(),
                        c.transactionPeers(),
                        c.groups(),
                        c.shares(),
                        member == null ? PartitionLeaders.single() : member,
                        member == null ? () -> true : member::mayAcknowledge,
                        this::nodeFor,
                        timer,
                        handlerPool,
                        pins,
                        clusterDir,
                        features,
                        telemetry));
        // Members parked in JoinGroup/SyncGroup would otherwise hold shutdown for a rebalance timeout.
        KafkaListeners bound = KafkaListeners.bind(config, security, served, invoker, c.groups()::shutdown, started);
        listeners = bound;
        AdvertisedListeners listening = bound.advertised();
        if (member != null) {
            Endpoint first = listening.first();
            member.join(new BrokerRegistration(config.brokerId(), first.host(), first.port(), listening.registered()));
        }
        metrics.watch(engine, c.groups(), bound.server());
        listenersBound = true;
        started.add("readiness", () -> listenersBound = false);
        RetentionSchedule retention = RetentionSchedule.start(config.retentionCheckInterval(), engine, metrics);
        started.add("the retention schedule", retention::close);
        bound.reloadTlsEvery(security.sslReloadInterval(), timer, interBroker.listenerName(), c.peers(), started);
        LOG.info(
                "kaas broker {} listening on {} (advertised {}), data in {}{}",
                config.brokerId(),
                listening.bound(),
                listening.first(),
                config.inMemory()
                        ? "memory"
                        : engine.logDirs().stream()
                                .map(d -> d.path().toAbsolutePath().normalize().toString())
                                .collect(java.util.stream.Collectors.joining(",")),
                admin == null ? "" : ", admin listener on " + admin.address());
    }

    /** The broker as its first listener advertises it, or null before the listeners are bound. */
    private BrokerNode node() {
        KafkaListeners l = listeners;
        return l == null ? null : l.advertised().node();
    }

    /** The broker as the client's listener advertises it (a client on the SSL port is told the SSL address). */
    private BrokerNode nodeFor(RequestContext ctx) {
        KafkaListeners l = listeners;
        return l == null ? null : l.nodeFor(ctx);
    }

    /** The port listener {@code listenerName} is bound to. */
    public int boundPort(String listenerName) {
        KafkaListeners l = listeners;
        if (l == null) {
            throw new IllegalArgumentException("no bound listener named " + listenerName);
        }
        return l.advertised().boundPort(listenerName);
    }

    /** The port the first listener is bound to (the OS's choice when 0 was asked for). */
    public int boundPort() {
        KafkaListeners l = listeners;
        if (l == null) {
            throw new IllegalStateException("broker is not started");
        }
        return l.advertised().bound().get(0).getPort();
    }

    /** {@code host:port} for a client's bootstrap.servers. */
    public String bootstrapServers() {
        BrokerNode n = node();
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

    /**
     * The ACLs {@code filter} matches that this broker's authorizer has in force (what DescribeAcls to this very broker
     * answers): with brokers sharing a directory, one another broker wrote is in force here within a second.
     */
    public List<org.apache.kafka.common.acl.AclBinding> aclsInForce(
            org.apache.kafka.common.acl.AclBindingFilter filter) {
        return access.acls(filter);
    }

    public BrokerConfig config() {
        return config;
    }

    /**
     * Clean shutdown, in the reverse of the start: stop accepting, stop reading, answer requests in flight, stop the
     * coordinators, timers and handler threads, close the admin listener, then close the engine (fsync, manifests,
     * checkpoints at EOF, locks released), and last leave the cluster. Everything is stopped even when one part fails to;
     * the first failure is thrown. Idempotent.
     */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        LOG.info("kaas broker {} stopping", config.brokerId());
        try {
            started.stopAll();
        } finally {
            LOG.info("kaas broker {} stopped", config.brokerId());
        }
    }

    /** The engine, and after it the membership: its partitions' files are written while the lease still holds. */
    private void closeEngineThenMembership() {
        ClusterMember m = member;
        try {
            if (m != null && !m.mayAcknowledge() && engine instanceof DiskStorageEngine shared) {
                // Fenced: another broker may own these partitions already; write nothing more to them.
                shared.closeFenced();
            } else {
                engine.close();
            }
        } finally {
            if (m != null) {
                // Even when the close failed: nothing writes to them any more, and a lease renewed on by a
                // half-stopped broker would keep its partitions from every other broker (the next owner recovers
                // what it left).
                m.close();
            }
        }
    }

    @Override
    public void close() {
        stop();
    }
}
