package io.kaas.storage;

import io.kaas.storage.format.AbortedTransaction;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.FileSlice;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One partition's log, as the broker and tools use it. {@link io.kaas.storage.Partition} is the one
 * implementation; it runs on a real disk or, in dev mode, on an in-memory filesystem.
 *
 * <p>Thread-safe. Appends serialise on the partition's lock; reads and {@link #state()} do not take it.
 */
public interface PartitionLog extends AutoCloseable {
    TopicPartition id();

    /**
     * Validates and appends one or more v2 batches (one Produce partition entry). The bytes are
     * written verbatim except baseOffset and partitionLeaderEpoch. The future completes when the
     * append is acknowledged under {@code acks}; with {@link Acks#ALL} that is after the fsync that
     * covers it. It completes exceptionally with a {@link StorageException} whose kind says why;
     * when it does, nothing of this call is visible to readers. The partition writes the assigned
     * offsets into {@code batches} itself, so the caller must not share or reuse the buffer until the
     * future completes.
     *
     * @param leaderEpoch the caller's view of the leader epoch, or -1 to skip the fence
     */
    CompletableFuture<AppendResult> append(ByteBuffer batches, Acks acks, int leaderEpoch);

    /**
     * {@link #append} if it can run without blocking the calling thread (no wait for the partition's
     * lock, no roll, no file to open, never an fsync on this thread), else null and nothing was done:
     * the caller then calls {@link #append} from a thread that may block. For a network event loop,
     * which serves many connections and must not stall on a disk. The default never appends here.
     */
    default CompletableFuture<AppendResult> appendWithoutBlocking(ByteBuffer batches, Acks acks, int leaderEpoch) {
        return null;
    }

    /**
     * Whole batches from the one containing {@code fetchOffset}, up to {@code maxBytes} (but at least
     * one batch if any is readable), none whose last offset is at or beyond {@code readCap}.
     *
     * @throws StorageException OFFSET_OUT_OF_RANGE if fetchOffset is below log start or above the high watermark
     */
    default FetchResult read(long fetchOffset, int maxBytes, long readCap) {
        return read(fetchOffset, ReadLimit.atLeastOneBatch(maxBytes), readCap);
    }

    /**
     * Whole batches from the one containing {@code fetchOffset}, within {@code limit}, none whose last
     * offset is at or beyond {@code readCap}.
     *
     * @throws StorageException OFFSET_OUT_OF_RANGE if fetchOffset is below log start or above the high watermark
     */
    FetchResult read(long fetchOffset, ReadLimit limit, long readCap);

    /**
     * The same batches as {@link #read}, chosen by the same rules, but as a {@link FileSlice} of the
     * segment file when the log's files are real OS files (so they can be sent with sendfile); the
     * copied bytes otherwise (the in-memory engine). A result's {@code file} is null when it copied.
     */
    default FetchResult readForTransfer(long fetchOffset, int maxBytes, long readCap) {
        return readForTransfer(fetchOffset, ReadLimit.atLeastOneBatch(maxBytes), readCap);
    }

    /** {@link #read(long, ReadLimit, long)} as a {@link FileSlice} when it can be: see {@link #readForTransfer}. */
    default FetchResult readForTransfer(long fetchOffset, ReadLimit limit, long readCap) {
        return read(fetchOffset, limit, readCap);
    }

    /** Lock-free snapshot of the offsets. */
    PartitionState state();

    /**
     * Why the partition refuses appends (an fsync or write error, or a {@link StorageException.Kind#STALLED}
     * fsync), or empty while it is healthy. Lock-free: a hung fsync never blocks it.
     */
    default Optional<StorageException> failure() {
        return Optional.empty();
    }

    /**
     * Completes once the high watermark is above {@code offset} (immediately if it already is), or
     * when the partition closes. For Fetch long-polls.
     */
    CompletableFuture<Void> awaitHighWatermarkAbove(long offset);

    /**
     * DeleteRecords: advances log start to {@code offset} (-1 = high watermark), durably, then
     * removes closed segments lying wholly below it. Never removes the active segment.
     *
     * @return the new log start offset
     */
    long deleteRecords(long offset);

    /**
     * ListOffsets by timestamp (KIP-79): a copy of the first batch whose max timestamp is ≥ {@code timestamp}
     * and that holds an offset ≥ {@code fromOffset} and ≥ log start. The record the lookup answers with is
     * inside it; the broker reads its record timestamps. Only batch headers are read to find it.
     */
    Optional<StoredBatch> firstBatchWithMaxTimestampAtLeast(long timestamp, long fromOffset);

    /**
     * ListOffsets MAX_TIMESTAMP (KIP-734): a copy of the first batch holding the partition's largest
     * timestamp (of the first segment holding it, as Apache), whose first record with that timestamp is the answer.
     */
    Optional<StoredBatch> firstBatchWithMaxTimestamp();

    /** Aborted transactions overlapping [fetchOffset, upperBound). */
    List<AbortedTransaction> abortedTransactions(long fetchOffset, long upperBound);

    /** Every producer the idempotence table holds, by producer id, with its open transaction if any. */
    List<ProducerStatus> producers();

    /**
     * OffsetForLeaderEpoch: the end offset of {@code epoch} (the start offset of the next higher epoch,
     * or the log end for the current one) paired with the largest epoch ≤ the requested one; empty
     * when no epoch ≤ the requested one exists.
     */
    Optional<EpochEndOffset> endOffsetForEpoch(int epoch);

    /** Fsync everything appended so far (used on close, and by tests). */
    void flush();

    @Override
    void close();

    record EpochEndOffset(int epoch, long endOffset) {}
}
