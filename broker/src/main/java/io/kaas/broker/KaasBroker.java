package io.kaas.broker;

import io.kaas.broker.admin.AdminServer;
import io.kaas.broker.admin.Readiness;
import io.kaas.broker.cluster.InterBrokerClient;
import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.cluster.RegisteredPeers;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.config.TopicConfigView;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.metrics.BrokerMetrics;
import io.kaas.broker.quota.ClientQuotaStore;
import io.kaas.broker.quota.ClientQuotas;
import io.kaas.broker.quota.Throttling;
import io.kaas.broker.security.AccessControl;
import io.kaas.broker.security.InterBrokerListener;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.broker.txn.TransactionConfig;
import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionPeers;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.BrokerRegistration;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.ClusterMember;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.CoordinatorSlots;
import io.kaas.cluster.Endpoint;
import io.kaas.cluster.PartitionLeaders;
import io.kaas.cluster.PartitionPins;
import io.kaas.protocol.KafkaServer;
import io.kaas.protocol.ListenerSecurity;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.RequestInvoker;
import io.kaas.protocol.ServedApis;
import io.kaas.security.AclStore;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.MemoryStorageEngine;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.layout.ClusterDir;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
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
    private static final long DRAIN_TIMEOUT_MS = 10_000;
    private static final java.time.Duration INTER_BROKER_TIMEOUT = java.time.Duration.ofSeconds(10);

    private final BrokerConfig config;
    private final SecurityConfig security;
    private final StorageEngine engine;
    private final BrokerMetrics metrics;
    private final AtomicReference<BrokerNode> node = new AtomicReference<>();
    /** Per listener name: what Metadata/FindCoordinator name to a client connected there (Apache's rule). */
    private final Map<String, BrokerNode> nodesByListener = new ConcurrentHashMap<>();

    private final List<ListenerSecurity> listenerSecurities = new ArrayList<>();
    private final List<InetSocketAddress> bound = new ArrayList<>();
    private KafkaServer server;
    private GroupCoordinator groups;
    private TransactionConfig transactionConfig = TransactionConfig.DEFAULTS;
    private TransactionCoordinator transactions;
    /** With a coordinator: requests to the other brokers (transaction markers, AddPartitionsToTxn), else null. */
    private InterBrokerClient peers;

    private TransactionPeers transactionPeers;
    private ExecutorService handlerPool;
    private ScheduledExecutorService timer;
    private RetentionSchedule retention;
    private AdminServer admin;
    /** Several brokers over one shared directory: how to join; null for a broker on its own. */
    private ClusterConfig clusterConfig;

    private ClusterMember member;
    private AccessControl access = AccessControl.none();
    private ClientQuotas quotas;
    private volatile boolean listenersBound;
    private boolean started;
    private boolean stopped;

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
    }

    /** A broker over the engine {@code config} asks for: on disk under its data dir, or in memory. */
    public static KaasBroker create(BrokerConfig config) {
        return create(config, SecurityConfig.none());
    }

    /** {@link #create(BrokerConfig)} with TLS/SASL listeners as {@code security} describes. */
    public static KaasBroker create(BrokerConfig config, SecurityConfig security) {
        EngineConfig engineConfig = engineConfig(config);
        BrokerMetrics metrics = new BrokerMetrics(config.metricsPerPartition());
        EngineEventLog observer = new EngineEventLog(metrics.engine());
        StorageEngine engine = config.inMemory()
                ? new MemoryStorageEngine(engineConfig, observer)
                : new DiskStorageEngine(engineConfig, observer);
        return new KaasBroker(config, security, engine, metrics);
    }

    /** The engine settings {@code config} asks for. */
    private static EngineConfig engineConfig(BrokerConfig config) {
        Path dir = config.inMemory() ? Path.of("kaas-memory") : config.dataDir();
        EngineConfig engineConfig = EngineConfig.defaults(dir)
                .withSegmentBytes(config.segmentBytes())
                .withFlushIntervalMessages(config.flushIntervalMessages())
                .withCleaner(config.cleaner());
        if (config.maxOpenFiles() > 0) {
            engineConfig = engineConfig.withMaxOpenFiles(config.maxOpenFiles());
        }
        return engineConfig;
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
        StorageEngine engine = DiskStorageEngine.shared(engineConfig(config), new EngineEventLog(metrics.engine()));
        KaasBroker broker = new KaasBroker(config, security, engine, metrics);
        broker.clusterConfig = cluster;
        return broker;
    }

    /** This broker's membership when it shares its directory with others, else null. */
    public ClusterMember clusterMember() {
        return member;
    }

    /** Transaction coordinator settings (before {@link #start}); Apache's defaults otherwise. */
    public synchronized KaasBroker withTransactionConfig(TransactionConfig v) {
        if (started) {
            throw new IllegalStateException("broker already started");
        }
        transactionConfig = v;
        return this;
    }

    public synchronized KaasBroker start() {
        if (started) {
            throw new IllegalStateException("broker already started");
        }
        started = true;
        // Before anything is bound: a bad inter-broker setting is a configuration error naming its key.
        InterBrokerListener interBroker = InterBrokerListener.resolve(
                security, config.listeners(), config.advertisedListeners(), clusterConfig != null);
        if (config.adminListener() != null) {
            // First, so a taken admin port fails the start before anything else is bound or started.
            try {
                admin = AdminServer.start(
                        config.adminListener(), metrics.registry(), new Readiness(() -> listenersBound, engine));
            } catch (RuntimeException e) {
                stop();
                throw e;
            }
        }
        ClusterStore store = null;
        if (clusterConfig != null) {
            try {
                store = clusterConfig.connect(config.clusterId());
            } catch (RuntimeException e) {
                stop();
                throw e;
            }
            member = new ClusterMember(store, clusterConfig, engine, System::nanoTime);
        }
        handlerPool = Executors.newFixedThreadPool(
                config.requestHandlerThreads(), new DefaultThreadFactory("kaas-request-handler"));
        timer = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("kaas-timer", true));
        Path clusterDir = ClusterDir.of(engine.dataDir());
        try {
            // Durably created: offsets, credentials, ACLs and transaction state written into it must survive a power
            // cut.
            io.kaas.storage.io.AtomicFile.createDirectories(clusterDir);
        } catch (IOException e) {
            throw new UncheckedIOException(clusterDir + ": cannot create the cluster state directory", e);
        }
        TopicCatalog topics = new TopicCatalog(engine, config.autoCreateTopics(), config.defaultPartitions());
        if (member != null) {
            // A dead owner's lease expires within the TTL: wait up to two for the owners to let go before answering.
            ClusterMember m = member;
            java.time.Duration wait = clusterConfig.leaseTtl().multipliedBy(2);
            topics.deleteThrough(name -> m.deleteTopic(name, wait));
        }
        TopicConfigView topicConfigs = new TopicConfigView(config);
        ServedApis served = new ServedApis();
        // A handler that appended fsyncs its last partition itself before taking the next request (no committer
        // wake-up).
        RequestInvoker invoker = new RequestInvoker(served, engine.fsyncingAfterTasks(handlerPool), metrics.requests());
        groups = new GroupCoordinator(
                clusterDir,
                timer,
                config.consumerGroups(),
                () -> topics.topics().stream().collect(Collectors.toMap(TopicInfo::name, t -> t)));
        ClusterStore ids = store;
        ProducerIdAllocator producerIds = ids == null
                ? new ProducerIdAllocator(clusterDir)
                : new ProducerIdAllocator(ids::allocateProducerIdBlock);
        if (member != null) {
            peers = interBrokerClient(interBroker, member);
            transactionPeers = new TransactionPeers(member, node::get, peers);
            transactions = new TransactionCoordinator(
                    clusterDir,
                    producerIds,
                    topics,
                    groups,
                    transactionConfig,
                    transactionPeers,
                    member::mayAcknowledge);
            TransactionCoordinator txns = transactions;
            GroupCoordinator g = groups;
            g.coordinateWhenTaken(member::mayAcknowledge);
            member.onCoordinatorSlots(new CoordinatorSlots.Listener() {
                @Override
                public void gained(CoordinatorSlots kind, int slot, int epoch) {
                    switch (kind) {
                        case GROUP -> g.takeCoordination(slot, epoch);
                        case TRANSACTION -> txns.takeCoordination(slot, epoch);
                    }
                }

                @Override
                public void lost(CoordinatorSlots kind, int slot) {
                    switch (kind) {
                        case GROUP -> g.giveUpCoordination(slot);
                        case TRANSACTION -> txns.giveUpCoordination(slot);
                    }
                }
            });
        } else {
            transactions = new TransactionCoordinator(clusterDir, producerIds, topics, groups, transactionConfig);
        }
        // Before any listener: transactions left prepared by a crash are completed before anything is served.
        transactions.start();
        quotas = new ClientQuotas(new ClientQuotaStore(ClusterDir.clientQuotas(clusterDir)), security.quotaWindow());
        Throttling throttling = new Throttling(quotas);
        try {
            access = security.accessControl(new AclStore(ClusterDir.acls(clusterDir)));
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
        invoker.authorizeWith(access);
        invoker.throttleWith(throttling);
        // kafka-reassign-partitions: a move is a pin in the shared cluster's assignment (kaas assign's); alone, nothing
        // moves.
        PartitionPins pins = store == null ? null : new PartitionPins(store);
        ApiHandlers.registerAll(
                invoker,
                new ApiHandlers.Parts(
                        config,
                        security,
                        metrics,
                        topics,
                        topicConfigs,
                        producerIds,
                        throttling,
                        quotas,
                        transactionConfig,
                        transactions,
                        transactionPeers,
                        groups,
                        member == null ? PartitionLeaders.single() : member,
                        member == null ? () -> true : member::mayAcknowledge,
                        this::nodeFor,
                        timer,
                        handlerPool,
                        pins,
                        clusterDir));
        server = new KafkaServer(config.networkThreads(), config.socketBuffers());
        try {
            security.validate(config.listeners());
            server.limitConnections(security.connectionLimits());
            for (Endpoint listener : config.listeners()) {
                ListenerSecurity ls = security.listenerSecurity(listener.listenerName());
                listenerSecurities.add(ls);
                bound.add(server.bind(
                        listener.listenerName(),
                        listener.host(),
                        listener.port(),
                        ls,
                        served,
                        invoker,
                        config.socketRequestMaxBytes()));
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
        for (int i = 0; i < config.listeners().size(); i++) {
            Endpoint a = advertised(i);
            nodesByListener.putIfAbsent(
                    config.listeners().get(i).listenerName(),
                    new BrokerNode(config.brokerId(), a.host(), a.port(), config.clusterId()));
        }
        if (member != null) {
            try {
                member.join(new BrokerRegistration(
                        config.brokerId(), advertised.host(), advertised.port(), registeredEndpoints()));
            } catch (RuntimeException e) {
                stop();
                throw e;
            }
        }
        metrics.watch(engine, groups, server);
        listenersBound = true;
        retention = RetentionSchedule.start(config.retentionCheckInterval(), engine, metrics);
        startTlsReloadChecks(interBroker.listenerName());
        LOG.info(
                "kaas broker {} listening on {} (advertised {}), data in {}{}",
                config.brokerId(),
                bound,
                advertised,
                config.inMemory() ? "memory" : engine.dataDir().toAbsolutePath().normalize(),
                admin == null ? "" : ", admin listener on " + admin.address());
        return this;
    }

    /** The broker as the client's listener advertises it (a client on the SSL port is told the SSL address). */
    private BrokerNode nodeFor(RequestContext ctx) {
        BrokerNode n = ctx.session() == null
                ? null
                : nodesByListener.get(ctx.session().listener().listenerName());
        return n != null ? n : node.get();
    }

    /**
     * What listener {@code i} advertises: the advertised listener of the same name, else (with
     * advertised listeners of other names only) the first advertised one, else the bound address.
     */
    private Endpoint advertised(int i) {
        Endpoint listener = config.listeners().get(i);
        for (Endpoint a : config.advertisedListeners()) {
            if (a.listenerName().equals(listener.listenerName())) {
                return a;
            }
        }
        if (!config.advertisedListeners().isEmpty()) {
            return config.advertisedListeners().get(0);
        }
        String host = listener.host().isEmpty() || listener.host().equals("0.0.0.0") ? "localhost" : listener.host();
        return new Endpoint(listener.listenerName(), host, bound.get(i).getPort());
    }

    /**
     * Requests to the other brokers go to their {@code interBroker} listener, as each registered it, over
     * kafka-clients' client stack with that listener's TLS and SASL (this broker's keystore, truststore and JAAS login).
     */
    private InterBrokerClient interBrokerClient(InterBrokerListener interBroker, ClusterMember m) {
        LOG.info("broker {}: inter-broker requests go to listener {}", config.brokerId(), interBroker);
        org.apache.kafka.common.utils.internals.LogContext log = new org.apache.kafka.common.utils.internals.LogContext(
                "[kaas-broker-" + config.brokerId() + " inter-broker] ");
        return new InterBrokerClient(
                config.brokerId(),
                INTER_BROKER_TIMEOUT,
                () -> interBroker.newChannelBuilder(security, log),
                new RegisteredPeers(m, interBroker.listenerName()));
    }

    /**
     * What this broker registers for the others to reach it by: Apache's effective advertised listeners
     * ({@code advertised.listeners}, else the bound listeners with their real ports; 0.0.0.0 → localhost).
     */
    private List<String> registeredEndpoints() {
        if (!config.advertisedListeners().isEmpty()) {
            return config.advertisedListeners().stream().map(Endpoint::toString).toList();
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < config.listeners().size(); i++) {
            Endpoint l = config.listeners().get(i);
            String host = l.host().isEmpty() || l.host().equals("0.0.0.0") ? "localhost" : l.host();
            out.add(new Endpoint(l.listenerName(), host, bound.get(i).getPort()).toString());
        }
        return out;
    }

    /** The port listener {@code listenerName} is bound to. */
    public synchronized int boundPort(String listenerName) {
        for (int i = 0; i < config.listeners().size() && i < bound.size(); i++) {
            if (config.listeners().get(i).listenerName().equals(listenerName)) {
                return bound.get(i).getPort();
            }
        }
        throw new IllegalArgumentException("no bound listener named " + listenerName);
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

    /**
     * Certificate rotation without a restart: TLS listeners re-read changed stores (on {@code kaas-timer}). The
     * inter-broker listener's stores are this broker's client side to the others too: when they reload, the
     * inter-broker connections are made anew with them from the next request on.
     */
    private void startTlsReloadChecks(String interBrokerListener) {
        long ms = security.sslReloadInterval().toMillis();
        if (ms > 0 && listenerSecurities.stream().anyMatch(ListenerSecurity::tls)) {
            timer.scheduleWithFixedDelay(
                    () -> {
                        for (ListenerSecurity ls : listenerSecurities) {
                            if (ls.reloadIfChanged()
                                    && peers != null
                                    && ls.listenerName().equals(interBrokerListener)) {
                                peers.renewConnections();
                            }
                        }
                    },
                    ms,
                    ms,
                    TimeUnit.MILLISECONDS);
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
            retention.close();
        }
        if (transactions != null) {
            // Markers in flight fail with the engine's close; their transactions stay prepared and are completed at the
            // next start.
            transactions.stop();
        }
        if (peers != null) {
            peers.close();
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
        listenerSecurities.forEach(ListenerSecurity::close);
        access.close();
        if (quotas != null) {
            quotas.close();
        }
        try {
            if (member != null && !member.mayAcknowledge() && engine instanceof DiskStorageEngine shared) {
                // Fenced: another broker may own these partitions already; write nothing more to them.
                shared.closeFenced();
            } else {
                engine.close();
            }
        } finally {
            if (member != null) {
                // After the engine: its partitions' files were written while the lease still held. Even when the
                // close failed: nothing writes to them any more, and a lease renewed on by a half-stopped broker
                // would keep its partitions from every other broker (the next owner recovers what it left).
                member.close();
            }
        }
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
