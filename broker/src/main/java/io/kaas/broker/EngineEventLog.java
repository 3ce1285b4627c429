package io.kaas.broker;

import io.kaas.storage.EngineObserver;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.cleaner.CleanReport;
import io.kaas.storage.format.CodecSite;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.recovery.RecoveryReport;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the engine's notable events, one line each (a partition recovered, with the bytes its scan read;
 * a partition refused at open), then hands every event to {@code next} (the metrics). fsyncs are not
 * logged: there is one per acks=all append.
 */
final class EngineEventLog implements EngineObserver {
    private static final Logger LOG = LoggerFactory.getLogger(EngineEventLog.class);

    private final EngineObserver next;

    EngineEventLog(EngineObserver next) {
        this.next = next;
    }

    @Override
    public void fsynced(TopicPartition partition, long durationNanos, long appendsCovered) {
        next.fsynced(partition, durationNanos, appendsCovered);
    }

    @Override
    public void tripped(CodecSite site, long count) {
        next.tripped(site, count);
    }

    @Override
    public void partitionOpened(TopicPartition partition, RecoveryReport report, long durationNanos) {
        LOG.info(
                "{}-{}: recovered in {} ms: {} segments, {} bytes scanned{}",
                partition.topic(),
                partition.partition(),
                TimeUnit.NANOSECONDS.toMillis(durationNanos),
                report.segmentsScanned(),
                report.bytesScanned(),
                report.bytesTruncated() > 0 ? ", " + report.bytesTruncated() + " bytes of torn tail cut" : "");
        next.partitionOpened(partition, report, durationNanos);
    }

    @Override
    public void partitionOpenFailed(TopicPartition partition, StorageException failure) {
        // The engine's start-up load, or the request that asked for the partition, logs the error itself.
        next.partitionOpenFailed(partition, failure);
    }

    @Override
    public void partitionFailed(TopicPartition partition, StorageException failure) {
        // Partition logs the failure at ERROR where it happens; counted here.
        next.partitionFailed(partition, failure);
    }

    @Override
    public void cleaned(TopicPartition partition, CleanReport report, long durationNanos) {
        if (report.endOffset() >= 0) {
            LOG.info(
                    "{}-{}: cleaned {} segment(s) into {} in {} ms below offset {}: {} of {} records and {} bytes removed",
                    partition.topic(),
                    partition.partition(),
                    report.segmentsCleaned(),
                    report.segmentsAfter(),
                    TimeUnit.NANOSECONDS.toMillis(durationNanos),
                    report.endOffset(),
                    report.recordsRemoved(),
                    report.recordsRead(),
                    report.bytesRemoved());
        }
        next.cleaned(partition, report, durationNanos);
    }
}
