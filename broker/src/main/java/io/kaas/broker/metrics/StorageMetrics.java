package io.kaas.broker.metrics;

import io.kaas.storage.EngineObserver;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.cleaner.CleanReport;
import io.kaas.storage.format.CodecSite;
import io.kaas.storage.format.CodecTripwire;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.recovery.RecoveryReport;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The engine's side of the metrics, fed through core-storage's {@link EngineObserver} seam (the engine
 * knows nothing of Prometheus): fsync latency and appends per fsync (how well group commit coalesces),
 * partition opens and the bytes their recovery scanned, storage errors by kind, retention passes, and the engine's
 * codec sites (passed on to {@link CodecMetrics}).
 */
final class StorageMetrics implements EngineObserver {
    /** 50 µs (page-cache-only disks, jimfs) to 30 s (the stall watchdog's default). */
    private static final double[] FSYNC_BUCKETS = {
        0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30
    };

    private static final double[] APPENDS_BUCKETS = {1, 2, 4, 8, 16, 32, 64, 128, 256, 1024};

    private final Histogram fsyncDuration;
    private final Histogram appendsPerFsync;
    private final Counter partitionsOpened;
    private final Counter recoveryBytes;
    private final Counter storageErrors;
    private final Counter retentionRuns;
    private final Counter retentionSegments;
    private final Counter cleanerRuns;
    private final Counter cleanerBytesRemoved;
    private final Counter cleanerRecordsRemoved;
    private final CodecTripwire codec;

    StorageMetrics(PrometheusRegistry registry, CodecTripwire codec) {
        this.codec = codec;
        fsyncDuration = Histogram.builder()
                .name("kaas_fsync_duration_seconds")
                .help("Duration of one partition fsync issued by its group committer")
                .classicOnly()
                .classicUpperBounds(FSYNC_BUCKETS)
                .withoutExemplars()
                .register(registry);
        appendsPerFsync = Histogram.builder()
                .name("kaas_fsync_appends")
                .help("Flush requests (appends, at flush interval 1) completed by one fsync: group commit at work")
                .classicOnly()
                .classicUpperBounds(APPENDS_BUCKETS)
                .withoutExemplars()
                .register(registry);
        partitionsOpened = Counter.builder()
                .name("kaas_partition_opens_total")
                .help("Partitions opened (each runs the recovery scan)")
                .register(registry);
        recoveryBytes = Counter.builder()
                .name("kaas_recovery_scanned_bytes_total")
                .help("Log bytes the recovery scans of partition opens read (zero after a clean shutdown)")
                .register(registry);
        storageErrors = Counter.builder()
                .name("kaas_storage_errors_total")
                .help("Partitions failed by storage: STALLED or IO fsync/write failures, DAMAGED or IO at open")
                .labelNames("kind")
                .register(registry);
        // Exported as 0 from the start, so that rate() and alerts see the first error as an increase.
        for (StorageException.Kind kind : new StorageException.Kind[] {
            StorageException.Kind.STALLED, StorageException.Kind.IO, StorageException.Kind.DAMAGED
        }) {
            storageErrors.initLabelValues(kind.name());
        }
        retentionRuns = Counter.builder()
                .name("kaas_retention_runs_total")
                .help("Retention passes run")
                .register(registry);
        retentionSegments = Counter.builder()
                .name("kaas_retention_segments_removed_total")
                .help("Segments removed by retention")
                .register(registry);
        cleanerRuns = Counter.builder()
                .name("kaas_log_cleaner_runs_total")
                .help("Cleaning passes of compacted partitions that cleaned something")
                .register(registry);
        cleanerBytesRemoved = Counter.builder()
                .name("kaas_log_cleaner_bytes_removed_total")
                .help("Log bytes the cleaner removed")
                .register(registry);
        cleanerRecordsRemoved = Counter.builder()
                .name("kaas_log_cleaner_records_removed_total")
                .help("Records the cleaner removed (superseded, deleted keys, aborted, markers)")
                .register(registry);
    }

    @Override
    public void cleaned(TopicPartition partition, CleanReport report, long durationNanos) {
        if (report.endOffset() >= 0) {
            cleanerRuns.inc();
            cleanerBytesRemoved.inc(Math.max(0, report.bytesRemoved()));
            cleanerRecordsRemoved.inc(report.recordsRemoved());
        }
    }

    @Override
    public void fsynced(TopicPartition partition, long durationNanos, long appendsCovered) {
        fsyncDuration.observe(durationNanos / 1e9);
        appendsPerFsync.observe(appendsCovered);
    }

    @Override
    public void partitionOpened(TopicPartition partition, RecoveryReport report, long durationNanos) {
        partitionsOpened.inc();
        recoveryBytes.inc(report.bytesScanned());
    }

    @Override
    public void partitionOpenFailed(TopicPartition partition, StorageException failure) {
        storageErrors.labelValues(failure.kind().name()).inc();
    }

    @Override
    public void partitionFailed(TopicPartition partition, StorageException failure) {
        storageErrors.labelValues(failure.kind().name()).inc();
    }

    @Override
    public void tripped(CodecSite site, long count) {
        codec.tripped(site, count);
    }

    void retentionRan(int segmentsRemoved) {
        retentionRuns.inc();
        retentionSegments.inc(segmentsRemoved);
    }
}
