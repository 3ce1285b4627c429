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

/**
 * A mutable copy of a {@link BrokerConfig} ({@link BrokerConfig#toBuilder}), to change several values at once;
 * {@link #build} checks them (the record's constructor).
 */
public final class BrokerConfigBuilder {
    private List<Endpoint> listeners;
    private List<Endpoint> advertisedListeners;
    private int brokerId;
    private String clusterId;
    private Path dataDir;
    private boolean inMemory;
    private long flushIntervalMessages;
    private long segmentBytes;
    private Duration retentionCheckInterval;
    private boolean autoCreateTopics;
    private int defaultPartitions;
    private int socketRequestMaxBytes;
    private int requestHandlerThreads;
    private int networkThreads;
    private int fetchSessionCacheSlots;
    private ConsumerGroupConfig consumerGroups;
    private int maxOpenFiles;
    private InetSocketAddress adminListener;
    private boolean metricsPerPartition;
    private CleanerSettings cleaner;
    private SocketBuffers socketBuffers;
    private LogDirs logDirs;
    private PlacementRule placement;

    BrokerConfigBuilder(BrokerConfig c) {
        listeners = c.listeners();
        advertisedListeners = c.advertisedListeners();
        brokerId = c.brokerId();
        clusterId = c.clusterId();
        dataDir = c.dataDir();
        inMemory = c.inMemory();
        flushIntervalMessages = c.flushIntervalMessages();
        segmentBytes = c.segmentBytes();
        retentionCheckInterval = c.retentionCheckInterval();
        autoCreateTopics = c.autoCreateTopics();
        defaultPartitions = c.defaultPartitions();
        socketRequestMaxBytes = c.socketRequestMaxBytes();
        requestHandlerThreads = c.requestHandlerThreads();
        networkThreads = c.networkThreads();
        fetchSessionCacheSlots = c.fetchSessionCacheSlots();
        consumerGroups = c.consumerGroups();
        maxOpenFiles = c.maxOpenFiles();
        adminListener = c.adminListener();
        metricsPerPartition = c.metricsPerPartition();
        cleaner = c.cleaner();
        socketBuffers = c.socketBuffers();
        logDirs = c.logDirs();
        placement = c.placement();
    }

    public BrokerConfigBuilder listeners(List<Endpoint> v) {
        listeners = v;
        return this;
    }

    public BrokerConfigBuilder advertisedListeners(List<Endpoint> v) {
        advertisedListeners = v;
        return this;
    }

    public BrokerConfigBuilder brokerId(int v) {
        brokerId = v;
        return this;
    }

    public BrokerConfigBuilder clusterId(String v) {
        clusterId = v;
        return this;
    }

    /** One data dir: the pool is it alone. */
    public BrokerConfigBuilder dataDir(Path v) {
        dataDir = v;
        logDirs = null;
        return this;
    }

    public BrokerConfigBuilder logDirs(LogDirs v) {
        logDirs = v;
        dataDir = v.home().path();
        return this;
    }

    public BrokerConfigBuilder placement(PlacementRule v) {
        placement = v;
        return this;
    }

    public BrokerConfigBuilder inMemory(boolean v) {
        inMemory = v;
        return this;
    }

    public BrokerConfigBuilder flushIntervalMessages(long v) {
        flushIntervalMessages = v;
        return this;
    }

    public BrokerConfigBuilder segmentBytes(long v) {
        segmentBytes = v;
        return this;
    }

    public BrokerConfigBuilder retentionCheckInterval(Duration v) {
        retentionCheckInterval = v;
        return this;
    }

    public BrokerConfigBuilder autoCreateTopics(boolean v) {
        autoCreateTopics = v;
        return this;
    }

    public BrokerConfigBuilder defaultPartitions(int v) {
        defaultPartitions = v;
        return this;
    }

    public BrokerConfigBuilder socketRequestMaxBytes(int v) {
        socketRequestMaxBytes = v;
        return this;
    }

    public BrokerConfigBuilder requestHandlerThreads(int v) {
        requestHandlerThreads = v;
        return this;
    }

    public BrokerConfigBuilder networkThreads(int v) {
        networkThreads = v;
        return this;
    }

    public BrokerConfigBuilder fetchSessionCacheSlots(int v) {
        fetchSessionCacheSlots = v;
        return this;
    }

    public BrokerConfigBuilder consumerGroups(ConsumerGroupConfig v) {
        consumerGroups = v;
        return this;
    }

    public BrokerConfigBuilder maxOpenFiles(int v) {
        maxOpenFiles = v;
        return this;
    }

    public BrokerConfigBuilder adminListener(InetSocketAddress v) {
        adminListener = v;
        return this;
    }

    public BrokerConfigBuilder metricsPerPartition(boolean v) {
        metricsPerPartition = v;
        return this;
    }

    public BrokerConfigBuilder cleaner(CleanerSettings v) {
        cleaner = v;
        return this;
    }

    public BrokerConfigBuilder socketBuffers(SocketBuffers v) {
        socketBuffers = v;
        return this;
    }

    public BrokerConfig build() {
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
                socketBuffers,
                logDirs,
                placement);
    }
}
