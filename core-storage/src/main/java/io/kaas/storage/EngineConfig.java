package io.kaas.storage;

import io.kaas.storage.format.TopicDefaults;
import io.kaas.storage.io.FileHandleCache;
import io.kaas.storage.layout.LogDirs;
import io.kaas.storage.layout.PlacementRule;
import io.kaas.storage.segment.IndexPolicy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * Engine-wide settings; per-topic {@code .config.json} values override the segment and flush ones.
 *
 * @param dataDir                 root of the data directory
 * @param segmentBytes            roll the active segment when the next batch would pass this size
 * @param indexIntervalBytes      add an index entry once more than this many bytes were appended since the last
 * @param flushIntervalMessages   fsync once this many messages are pending (1 = every append; Kafka's log.flush.interval.messages)
 * @param fsyncTimeout            an fsync slower than this makes the partition sticky-{@code STALLED}
 * @param checkpointIntervalBytes refresh recovery-checkpoint.json once the fsynced log grew this much
 * @param leaderEpoch             epoch written into new segment names and batches
 * @param clock                   time source for retention and segment.ms
 * @param maxOpenFiles            ceiling of segment files held open at once ({@link FileHandleCache}); idle ones
 *                                are closed past it. Default: 40% of the process's file-descriptor limit
 * @param cleaner                 the log cleaner's threads and buffers (compacted topics)
 * @param logDirs                 the volume pool ({@code log.dirs}); its home dir is {@code dataDir}
 * @param placement               how a new partition's dir is chosen when there are several
 */
public record EngineConfig(
        Path dataDir,
        long segmentBytes,
        int indexIntervalBytes,
        long flushIntervalMessages,
        Duration fsyncTimeout,
        long checkpointIntervalBytes,
        int leaderEpoch,
        Clock clock,
        int maxOpenFiles,
        CleanerSettings cleaner,
        LogDirs logDirs,
        PlacementRule placement) {
    public static final long DEFAULT_SEGMENT_BYTES = TopicDefaults.DEFAULT_SEGMENT_BYTES;
    public static final int DEFAULT_INDEX_INTERVAL_BYTES = IndexPolicy.DEFAULT_INTERVAL_BYTES;
    public static final long DEFAULT_FLUSH_INTERVAL_MESSAGES = 1;
    public static final Duration DEFAULT_FSYNC_TIMEOUT = Duration.ofSeconds(30);
    public static final long DEFAULT_CHECKPOINT_INTERVAL_BYTES = 64L << 20;
    public static final int MIN_MAX_OPEN_FILES = 16;

    public EngineConfig {
        if (logDirs == null) {
            logDirs = LogDirs.single(dataDir);
        }
        if (placement == null) {
            placement = PlacementRule.PARTITIONS;
        }
        if (!logDirs.home().path().equals(dataDir)) {
            throw new IllegalArgumentException("the data dir " + dataDir + " must be the first log dir, "
                    + logDirs.home().path());
        }
        if (segmentBytes < 1024) {
            throw new IllegalArgumentException("segment bytes must be at least 1024, got " + segmentBytes);
        }
        if (indexIntervalBytes < 0) {
            throw new IllegalArgumentException("index interval bytes must not be negative");
        }
        if (flushIntervalMessages < 1) {
            throw new IllegalArgumentException(
                    "flush interval messages must be at least 1, got " + flushIntervalMessages);
        }
        if (maxOpenFiles < MIN_MAX_OPEN_FILES) {
            throw new IllegalArgumentException(
                    "max open files must be at least " + MIN_MAX_OPEN_FILES + ", got " + maxOpenFiles);
        }
    }

    /** Settings over one data dir. */
    public EngineConfig(
            Path dataDir,
            long segmentBytes,
            int indexIntervalBytes,
            long flushIntervalMessages,
            Duration fsyncTimeout,
            long checkpointIntervalBytes,
            int leaderEpoch,
            Clock clock,
            int maxOpenFiles,
            CleanerSettings cleaner) {
        this(
                dataDir,
                segmentBytes,
                indexIntervalBytes,
                flushIntervalMessages,
                fsyncTimeout,
                checkpointIntervalBytes,
                leaderEpoch,
                clock,
                maxOpenFiles,
                cleaner,
                null,
                null);
    }

    public static EngineConfig defaults(Path dataDir) {
        return new EngineConfig(
                dataDir,
                DEFAULT_SEGMENT_BYTES,
                DEFAULT_INDEX_INTERVAL_BYTES,
                DEFAULT_FLUSH_INTERVAL_MESSAGES,
                DEFAULT_FSYNC_TIMEOUT,
                DEFAULT_CHECKPOINT_INTERVAL_BYTES,
                0,
                Clock.systemUTC(),
                FileHandleCache.defaultCeiling(),
                CleanerSettings.DEFAULTS);
    }

    public EngineConfig withSegmentBytes(long v) {
        return new EngineConfig(
                dataDir,
                v,
                indexIntervalBytes,
                flushIntervalMessages,
                fsyncTimeout,
                checkpointIntervalBytes,
                leaderEpoch,
                clock,
                maxOpenFiles,
                cleaner,
                logDirs,
                placement);
    }

    public EngineConfig withIndexIntervalBytes(int v) {
        return new EngineConfig(
                dataDir,
                segmentBytes,
                v,
                flushIntervalMessages,
                fsyncTimeout,
                checkpointIntervalBytes,
                leaderEpoch,
                clock,
                maxOpenFiles,
                cleaner,
                logDirs,
                placement);
    }

    public EngineConfig withFlushIntervalMessages(long v) {
        return new EngineConfig(
                dataDir,
                segmentBytes,
                indexIntervalBytes,
                v,
                fsyncTimeout,
                checkpointIntervalBytes,
                leaderEpoch,
                clock,
                maxOpenFiles,
                cleaner,
                logDirs,
                placement);
    }

    public EngineConfig withFsyncTimeout(Duration v) {
        return new EngineConfig(
                dataDir,
                segmentBytes,
                indexIntervalBytes,
                flushIntervalMessages,
                v,
                checkpointIntervalBytes,
                leaderEpoch,
                clock,
                maxOpenFiles,
                cleaner,
                logDirs,
                placement);
    }

    public EngineConfig withCheckpointIntervalBytes(long v) {
        return new EngineConfig(
                dataDir,
                segmentBytes,
                indexIntervalBytes,
                flushIntervalMessages,
                fsyncTimeout,
                v,
                leaderEpoch,
                clock,
                maxOpenFiles,
                cleaner,
                logDirs,
                placement);
    }

    public EngineConfig withLeaderEpoch(int v) {
        return new EngineConfig(
                dataDir,
                segmentBytes,
                indexIntervalBytes,
                flushIntervalMessages,
                fsyncTimeout,
                checkpointIntervalBytes,
                v,
                clock,
                maxOpenFiles,
                cleaner,
                logDirs,
                placement);
    }

    public EngineConfig withClock(Clock v) {
        return new EngineConfig(
                dataDir,
                segmentBytes,
                indexIntervalBytes,
                flushIntervalMessages,
                fsyncTimeout,
                checkpointIntervalBytes,
                leaderEpoch,
                v,
                maxOpenFiles,
                cleaner,
                logDirs,
                placement);
    }

    public EngineConfig withCleaner(CleanerSettings v) {
        return new EngineConfig(
                dataDir,
                segmentBytes,
                indexIntervalBytes,
                flushIntervalMessages,
                fsyncTimeout,
                checkpointIntervalBytes,
                leaderEpoch,
                clock,
                maxOpenFiles,
                v,
                logDirs,
                placement);
    }

    /** Over the pool {@code v}: its first dir becomes the data dir. */
    public EngineConfig withLogDirs(LogDirs v) {
        return new EngineConfig(
                v.home().path(),
                segmentBytes,
                indexIntervalBytes,
                flushIntervalMessages,
                fsyncTimeout,
                checkpointIntervalBytes,
                leaderEpoch,
                clock,
                maxOpenFiles,
                cleaner,
                v,
                placement);
    }

    public EngineConfig withPlacement(PlacementRule v) {
        return new EngineConfig(
                dataDir,
                segmentBytes,
                indexIntervalBytes,
                flushIntervalMessages,
                fsyncTimeout,
                checkpointIntervalBytes,
                leaderEpoch,
                clock,
                maxOpenFiles,
                cleaner,
                logDirs,
                v);
    }

    public EngineConfig withMaxOpenFiles(int v) {
        return new EngineConfig(
                dataDir,
                segmentBytes,
                indexIntervalBytes,
                flushIntervalMessages,
                fsyncTimeout,
                checkpointIntervalBytes,
                leaderEpoch,
                clock,
                v,
                cleaner,
                logDirs,
                placement);
    }
}
