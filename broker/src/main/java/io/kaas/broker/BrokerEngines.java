package io.kaas.broker;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.metrics.BrokerMetrics;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.MemoryStorageEngine;
import io.kaas.storage.StorageEngine;
import java.nio.file.Path;

/**
 * The storage engine a broker's settings ask for, with its events counted in the broker's metrics: on disk in a
 * directory of its own, in memory, or on disk in a directory shared with other brokers. Stateless.
 */
final class BrokerEngines {
    private BrokerEngines() {}

    /** The engine of a broker on its own: on disk under {@code config}'s data dir, or in memory. */
    static StorageEngine ownDirectory(BrokerConfig config, BrokerMetrics metrics) {
        EngineEventLog observer = new EngineEventLog(metrics.engine());
        return config.inMemory()
                ? new MemoryStorageEngine(engineConfig(config), observer)
                : new DiskStorageEngine(engineConfig(config), observer);
    }

    /** The engine of one broker of several over one shared data dir ({@link DiskStorageEngine#shared}). */
    static StorageEngine sharedDirectory(BrokerConfig config, BrokerMetrics metrics) {
        return DiskStorageEngine.shared(engineConfig(config), new EngineEventLog(metrics.engine()));
    }

    /** The engine settings {@code config} asks for. */
    private static EngineConfig engineConfig(BrokerConfig config) {
        Path dir = config.inMemory() ? Path.of("kaas-memory") : config.dataDir();
        EngineConfig engineConfig = (config.inMemory()
                        ? EngineConfig.defaults(dir)
                        : EngineConfig.defaults(dir).withLogDirs(config.pool()))
                .withPlacement(config.placement())
                .withSegmentBytes(config.segmentBytes())
                .withFlushIntervalMessages(config.flushIntervalMessages())
                .withCleaner(config.cleaner());
        if (config.maxOpenFiles() > 0) {
            engineConfig = engineConfig.withMaxOpenFiles(config.maxOpenFiles());
        }
        return engineConfig;
    }
}
