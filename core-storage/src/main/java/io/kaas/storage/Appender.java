package io.kaas.storage;

import io.kaas.storage.format.CodecSite;
import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicDefaults;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.Segment;
import io.kaas.storage.state.ProducerStateTable;
import java.io.IOException;
import java.util.List;

/**
 * The locked half of an append, in the order {@link #append} runs it: the leader-epoch fence,
 * idempotence ({@link ProducerStateTable#classify}), the timestamp check, a roll when due, the write
 * ({@link SegmentLog#write}), the producer and transaction state, and the flush trigger.
 *
 * <p>Every method runs under the partition lock, on the {@link GuardedState} {@link PartitionCore} hands
 * it; the core publishes the new view when the body returns. A write that could not be undone fails the
 * partition ({@link PartitionCore#fail}).
 */
final class Appender {
    /** What the locked half did: the result, and whether it asked the committer for a flush (and which). */
    record Appended(AppendResult result, boolean flushRequested, long flushSeq) {}

    private final TopicPartition id;
    private final EngineConfig config;
    private final PartitionCore core;
    /** The engine's observer: LogAppendTime's codec site, and a write or roll that failed the partition. */
    private final EngineObserver tripwire;

    Appender(TopicPartition id, EngineConfig config, PartitionCore core, EngineObserver tripwire) {
        this.id = id;
        this.config = config;
        this.core = core;
        this.tripwire = tripwire;
    }

    /**
     * Appends {@code parsed} (checked outside the lock by {@link ProducedBatches#parse}). With
     * {@code mustNotBlock}, returns null and changes nothing when a roll is due (a roll fsyncs) or the
     * active segment's log or index channel is closed (opening one may make the handle cache evict and
     * fsync). Holds lock.
     */
    Appended append(GuardedState g, ProducedBatches parsed, int leaderEpoch, boolean mustNotBlock) {
        core.ensureOpen();
        if (leaderEpoch >= 0 && leaderEpoch < g.epoch) {
            throw new StorageException(
                    StorageException.Kind.FENCED_LEADER_EPOCH,
                    id + ": leader epoch " + leaderEpoch + " is older than the partition's " + g.epoch);
        }
        AppendResult duplicate = duplicateOf(g, parsed);
        if (duplicate != null) {
            // A duplicate waits for the current flush too: the original may still be on its way to the disk.
            return new Appended(duplicate, false, core.requestedFlushSeq());
        }
        long now = now();
        g.timestamps.check(id, parsed.headers(), now);
        Segment.ChannelHold held = null;
        try {
            if (mustNotBlock) {
                if (rollDue(g, parsed.totalBytes())
                        || (held = g.log.active()
                                        .holdChannelsIfOpen(
                                                parsed.buffer(),
                                                parsed.starts(),
                                                parsed.headers().size()))
                                == null) {
                    return null; // nothing written, no state changed: the caller appends on a thread that may block
                }
            } else if (rollDue(g, parsed.totalBytes())) {
                roll(g);
            }
            AppendResult result = write(g, parsed, g.timestamps.logAppendTime(now));
            boolean flush = core.countTowardFlush(g, parsed.recordCount(), flushInterval(g));
            return new Appended(result, flush, core.requestedFlushSeq());
        } finally {
            if (held != null) {
                held.close();
            }
        }
    }

    /** Idempotence: null to append; a result for a duplicate; throws for fenced or out-of-order. Holds lock. */
    private AppendResult duplicateOf(GuardedState g, ProducedBatches parsed) {
        List<RecordBatchHeader> headers = parsed.headers();
        for (RecordBatchHeader h : headers) {
            if (h.hasProducerId() && headers.size() > 1) {
                throw new CorruptBatchException(
                        CorruptBatchException.Reason.BAD_RECORD_COUNT,
                        -1,
                        "an idempotent or transactional produce must carry exactly one batch, got " + headers.size());
            }
        }
        RecordBatchHeader h = headers.get(0);
        ProducerStateTable.Classification c = g.producers.classify(h, parsed.buffer(), parsed.starts()[0]);
        switch (c.verdict()) {
            case APPEND:
                return null;
            case DUPLICATE:
                return new AppendResult(
                        c.duplicateOf().baseOffset(),
                        c.duplicateOf().baseOffset() + h.lastOffsetDelta(),
                        g.logStartOffset,
                        true);
            case FENCED:
                throw new StorageException(StorageException.Kind.PRODUCER_FENCED, id + ": " + c.detail());
            case COORDINATOR_FENCED:
                throw new StorageException(StorageException.Kind.COORDINATOR_FENCED, id + ": " + c.detail());
            default:
                throw new StorageException(StorageException.Kind.OUT_OF_ORDER_SEQUENCE, id + ": " + c.detail());
        }
    }

    /**
     * Writes the batches ({@link SegmentLog#write}), then records idempotence and transaction state and
     * the producers' published status. Holds lock.
     */
    private AppendResult write(GuardedState g, ProducedBatches parsed, long logAppendTimeMs) {
        long base = g.log.nextOffset();
        List<RecordBatchHeader> stamped;
        try {
            stamped = g.log.write(parsed, logAppendTimeMs);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    g.log.active().logFile() + ": append failed, nothing written: " + e.getMessage(),
                    e);
        } catch (StorageException e) {
            core.fail(e);
            tripwire.partitionFailed(id, e);
            throw e;
        }
        if (logAppendTimeMs != RecordBatchHeader.NO_TIMESTAMP) {
            tripwire.tripped(CodecSite.LOG_APPEND_TIME, stamped.size());
        }
        for (int i = 0; i < stamped.size(); i++) {
            RecordBatchHeader h = stamped.get(i);
            g.producers.record(h, parsed.buffer(), parsed.starts()[i]);
            g.txns.onAppend(h, parsed.buffer(), parsed.starts()[i]);
            if (h.hasProducerId()) {
                g.statuses.update(h.producerId(), g.producers, g.txns);
            }
        }
        return new AppendResult(base, g.log.nextOffset() - 1, g.logStartOffset, false, logAppendTimeMs);
    }

    /**
     * {@link SegmentLog#rollDue} with the topic's segment.bytes and segment.ms (7 days unset, as Kafka, so
     * time retention can reach a quiet topic's data). Holds lock.
     */
    private boolean rollDue(GuardedState g, long incomingBytes) {
        TopicConfig t = g.topicConfig;
        long segmentBytes = t.segmentBytes() != null ? t.segmentBytes() : config.segmentBytes();
        long segmentMs = t.segmentMs() != null ? t.segmentMs() : TopicDefaults.DEFAULT_SEGMENT_MS;
        return g.log.rollDue(incomingBytes, segmentBytes, segmentMs, now());
    }

    /**
     * The old segment (log and index) is fsynced under the lock (so the committer never has to reach
     * back into it), the state snapshots are written, and the new file's directory entry is fsynced
     * before anything in it can be acknowledged. Holds lock.
     */
    private void roll(GuardedState g) {
        try {
            g.log.sealActive();
            // Recovery replays only the active segment (from the checkpoint or byte 0): the snapshots must
            // cover every batch before the new segment, or a producer whose last batches sit in the
            // sealed one would be forgotten after a crash (its retry written twice, its next sequence refused).
            g.stateFiles.writeSnapshots(g.producers, g.txns);
            g.log.startSegment(now());
        } catch (IOException | StorageException e) {
            StorageException s =
                    new StorageException(StorageException.Kind.IO, id + ": segment roll failed: " + e.getMessage(), e);
            core.fail(s);
            tripwire.partitionFailed(id, s);
            throw s;
        }
    }

    private long flushInterval(GuardedState g) {
        Long perTopic = g.topicConfig.flushMessages();
        return perTopic != null ? Math.max(1, perTopic) : config.flushIntervalMessages();
    }

    private long now() {
        return config.clock().millis();
    }
}
