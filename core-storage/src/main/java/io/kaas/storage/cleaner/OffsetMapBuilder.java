package io.kaas.storage.cleaner;

import io.kaas.storage.format.CodecSite;
import io.kaas.storage.format.CodecTripwire;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestException;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Set;
import java.util.function.LongConsumer;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.apache.kafka.storage.internals.log.OffsetMap;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;

/**
 * The map pass: from the first dirty offset, each key's latest offset goes into Apache's
 * {@link SkimpyOffsetMap} (MD5 of the key → offset, 24 bytes a key), records of aborted transactions
 * skipped, every batch's CRC and offsets checked ({@link BatchIntegrity}). An uncompressed v2 batch's keys
 * are read in place ({@link RecordKeys}); others are decoded. When the map fills, the pass says so and the
 * caller cleans up to where it got.
 *
 * <p>Not thread-safe: one per {@link LogCleaner}, on its thread (it reads through the cleaner's buffers).
 */
final class OffsetMapBuilder {
    /** How a map pass ended. */
    enum Result {
        /** every dirty cleanable segment is in the map */
        MAPPED,
        /** the map filled up inside a segment */
        FULL,
        /** a transactional or control batch turned up before the aborted ranges were walked */
        TRANSACTIONAL
    }

    private final CleanerBuffers buffers;
    private final CodecTripwire tripwire;

    OffsetMapBuilder(CleanerBuffers buffers, CodecTripwire tripwire) {
        this.buffers = buffers;
        this.tripwire = tripwire;
    }

    /** The records a batch's header says it holds (what a site reading its keys reads). */
    static long recordCount(RecordBatch batch) {
        Integer count = batch.countOrNull();
        return count != null ? count : batch.lastOffset() - batch.baseOffset() + 1;
    }

    /** An empty map within log.cleaner.dedupe.buffer.size, no larger than {@code offsetSpan} offsets need. */
    static OffsetMap newMap(long offsetSpan, long dedupeBufferBytes) {
        // No more slots than the dirty range has offsets: a small log does not take the whole buffer.
        long needed = (long) (offsetSpan / CleanerOptions.LOAD_FACTOR + 16) * 24;
        long memory = Math.min(Math.min(dedupeBufferBytes, needed), Integer.MAX_VALUE - 64);
        try {
            return new SkimpyOffsetMap((int) Math.max(memory, 24 * 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is not available", e);
        }
    }

    /**
     * The map pass over the dirty cleanable segments. With {@code aborted} null (not walked yet) it stops at the first
     * transactional or control batch and says so: the caller walks them and starts over. {@code verified} gets the
     * segments whose every batch passed its checks here.
     */
    Result mapDirty(
            Path dir,
            List<SegmentName> all,
            LogCleaner.Bounds bounds,
            OffsetMap map,
            List<TxnIndexSnapshot.Aborted> aborted,
            Set<SegmentName> verified,
            LongConsumer progress)
            throws IOException {
        long firstDirty = bounds.firstDirtyOffset();
        CleanedTransactions txns = new CleanedTransactions(
                aborted == null ? List.of() : AbortedRanges.overlapping(aborted, firstDirty, bounds.cleanableEnd()),
                tripwire);
        int maxDesired = (int) (map.slots() * CleanerOptions.LOAD_FACTOR);
        for (int i = 0; i < bounds.cleanableSegments(); i++) {
            long next = all.get(i + 1).baseOffset();
            if (next <= firstDirty) {
                continue;
            }
            Result r = mapSegment(
                    dir.resolve(all.get(i).logFileName()),
                    firstDirty,
                    map,
                    txns,
                    aborted != null,
                    maxDesired,
                    progress);
            if (r != Result.MAPPED) {
                return r;
            }
            verified.add(all.get(i));
            map.updateLatestOffset(next - 1);
        }
        return Result.MAPPED;
    }

    /**
     * Adds {@code log}'s keys at or past {@code firstDirty} to the map, checking every batch's CRC: FULL when the map
     * filled up, TRANSACTIONAL when {@code !txnsKnown} and a transactional batch turned up.
     */
    private Result mapSegment(
            Path log,
            long firstDirty,
            OffsetMap map,
            CleanedTransactions txns,
            boolean txnsKnown,
            int maxDesired,
            LongConsumer progress)
            throws IOException {
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            long size = ch.size();
            long position = 0;
            long minBase = BatchOffsetOrder.baseOffsetOf(log);
            while (position < size) {
                ByteBuffer readBuffer = buffers.fill(ch, position);
                MemoryRecords records = MemoryRecords.readableRecords(readBuffer);
                RecordKeys keys = new RecordKeys(readBuffer);
                long start = position;
                for (MutableRecordBatch batch : records.batches()) {
                    BatchIntegrity.checkCrc(batch, log, position);
                    minBase = BatchIntegrity.checkOffsets(batch, log, position, minBase);
                    if (!txnsKnown && (batch.isTransactional() || batch.isControlBatch())) {
                        progress.accept(position - start);
                        return Result.TRANSACTIONAL;
                    }
                    if (batch.isControlBatch()) {
                        txns.onControlBatch(batch);
                    } else if (txns.onDataBatch(batch)) {
                        // aborted: its keys do not count
                    } else if (batch.magic() >= RecordBatch.MAGIC_VALUE_V2
                            && batch.compressionType() == CompressionType.NONE) {
                        boolean complete;
                        tripwire.tripped(CodecSite.CLEANER_KEY_MAP, recordCount(batch));
                        try {
                            complete = keys.forEach(
                                    (int) (position - start),
                                    batch.sizeInBytes(),
                                    batch.baseOffset(),
                                    batch.countOrNull(),
                                    (key, offset) -> {
                                        if (offset < firstDirty) {
                                            return true;
                                        }
                                        if (map.size() >= maxDesired) {
                                            return false;
                                        }
                                        map.put(key, offset);
                                        return true;
                                    });
                        } catch (IllegalArgumentException e) {
                            throw BatchIntegrity.damaged(batch, log, position, e.getMessage());
                        }
                        if (!complete) {
                            progress.accept(position - start);
                            return Result.FULL;
                        }
                    } else {
                        tripwire.tripped(CodecSite.CLEANER_KEY_MAP, recordCount(batch));
                        try (CloseableIterator<Record> it = batch.streamingIterator(buffers.decompression())) {
                            while (it.hasNext()) {
                                Record r = it.next();
                                if (r.hasKey() && r.offset() >= firstDirty) {
                                    if (map.size() >= maxDesired) {
                                        progress.accept(position - start);
                                        return Result.FULL;
                                    }
                                    map.put(r.key(), r.offset());
                                }
                            }
                        }
                    }
                    if (batch.lastOffset() >= firstDirty) {
                        map.updateLatestOffset(batch.lastOffset());
                    }
                    position += batch.sizeInBytes();
                }
                progress.accept(position - start);
                if (position == start) {
                    buffers.growFor(ch, log, position);
                }
            }
            return Result.MAPPED;
        } catch (DigestException e) {
            throw new IllegalStateException("MD5 digest failed", e);
        }
    }
}
