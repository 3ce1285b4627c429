package io.kaas.inspect.data;

import io.kaas.inspect.IndexSeek;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.segment.HeaderCursor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Reads one partition's records in offset order across its segments, one batch at a time (memory: the largest
 * batch, plus a decompression buffer), decoded by kafka-clients' record classes, compressed batches included. A
 * segment is entered where its {@code .index} says the start offset lies; batches wholly outside the range, control
 * batches and, read_committed, aborted ones are passed over on their header alone. Records below the log start
 * (removed by DeleteRecords or retention, their segment not yet) are never read, as no consumer can read them.
 */
public final class RecordReader {
    private final RecordSink sink;
    private final Consumer<String> warnings;
    private final LongConsumer progress;

    /**
     * @param warnings one line per file whose bytes stop framing batches before its end ({@code FILE:BYTE: what})
     * @param progress fed the bytes of log to read (negative) first, then the bytes read as they are
     */
    public RecordReader(RecordSink sink, Consumer<String> warnings, LongConsumer progress) {
        this.sink = sink;
        this.warnings = warnings;
        this.progress = progress;
    }

    /** The result of one partition: records printed, and whether a segment held bytes that frame no batch. */
    public record Outcome(long records, boolean invalidBytes) {}

    public Outcome read(PartitionDir p, CatRange range) throws IOException {
        List<SegmentFile> segments = PartitionSegments.list(p.path());
        LogBounds bounds = LogBounds.read(p, segments, p.apache() ? ApacheCheckpoints.read(p.root()) : null);
        long start = Math.max(range.fromOffset(), bounds.logStartOffset());
        long end = range.toOffset() == Long.MAX_VALUE ? Long.MAX_VALUE : range.toOffset() + 1;
        TransactionView txns = null;
        if (range.readCommitted()) {
            txns = TransactionView.read(p, segments);
            end = Math.min(end, txns.lastStableOffset());
        }
        int first = 0;
        for (int i = 0; i < segments.size(); i++) {
            if (segments.get(i).baseOffset() <= start) {
                first = i;
            }
        }
        long total = 0;
        for (int i = first; i < segments.size(); i++) {
            total += java.nio.file.Files.size(segments.get(i).log());
        }
        progress.accept(-total);
        Walk walk = new Walk(p, range, start, end, txns);
        for (int i = first; i < segments.size() && !walk.done; i++) {
            walk.segment(segments.get(i), i == first, i == segments.size() - 1);
        }
        return new Outcome(walk.records, walk.invalid);
    }

    /** The state of one partition's read. */
    private final class Walk {
        private final PartitionDir p;
        private final CatRange range;
        private final long start;
        private final long end;
        private final TransactionView txns;
        private final BufferSupplier decompression = BufferSupplier.create();
        private ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        private boolean startFound;
        private boolean done;
        private boolean invalid;
        private long records;

        Walk(PartitionDir p, CatRange range, long start, long end, TransactionView txns) {
            this.p = p;
            this.range = range;
            this.start = start;
            this.end = end;
            this.txns = txns;
            this.startFound = !range.hasFromTime();
        }

        void segment(SegmentFile s, boolean seek, boolean last) throws IOException {
            try (FileChannel ch = FileChannel.open(s.log(), StandardOpenOption.READ)) {
                long size = ch.size();
                long from = seek ? IndexSeek.position(s.index(), s.baseOffset(), start, size) : 0;
                HeaderCursor cursor = new HeaderCursor(ch, from, size);
                long done0 = from;
                progress.accept(from);
                while (!done && cursor.next() == HeaderCursor.Framing.BATCH) {
                    RecordBatchHeader h = cursor.header();
                    progress.accept(h.sizeInBytes());
                    done0 = cursor.position() + h.sizeInBytes();
                    if (h.baseOffset() >= end) {
                        done = true;
                        break;
                    }
                    if (h.lastOffset() < start || h.isControl()) {
                        continue;
                    }
                    if (!startFound && h.maxTimestamp() < range.fromTime()) {
                        continue; // no record of it is that late (LogAppendTime: all are the max)
                    }
                    if (txns != null && h.isTransactional() && txns.aborted(h.producerId(), h.baseOffset())) {
                        continue;
                    }
                    batch(ch, cursor.position(), h.sizeInBytes());
                }
                if (!done && cursor.framing() != HeaderCursor.Framing.END) {
                    invalid = true;
                    warnings.accept(s.log() + ":" + cursor.position() + ": " + (size - cursor.position())
                            + " invalid bytes at the end (" + cursor.framing() + "); read stops there"
                            + (last ? "" : " and goes on in the next segment"));
                }
                progress.accept(size - done0);
            } catch (IOException e) {
                throw new StorageException(
                        StorageException.Kind.IO, s.log() + ": cannot read: " + IoFailure.describe(e), e);
            }
        }

        private void batch(FileChannel ch, long position, int size) throws IOException {
            if (buffer.capacity() < size) {
                buffer = ByteBuffer.allocate(Math.max(size, buffer.capacity() * 2));
            }
            buffer.clear().limit(size);
            while (buffer.hasRemaining()) {
                if (ch.read(buffer, position + buffer.position()) < 0) {
                    throw new IOException("file shorter than its batch at " + position);
                }
            }
            buffer.flip();
            for (MutableRecordBatch b : MemoryRecords.readableRecords(buffer).batches()) {
                try (CloseableIterator<Record> it = b.streamingIterator(decompression)) {
                    while (it.hasNext()) {
                        Record r = it.next();
                        long offset = r.offset();
                        if (offset < start) {
                            continue;
                        }
                        if (offset >= end) {
                            done = true;
                            return;
                        }
                        if (!startFound) {
                            if (r.timestamp() < range.fromTime()) {
                                continue;
                            }
                            startFound = true;
                        }
                        if (r.timestamp() > range.toTime()) {
                            done = true;
                            return;
                        }
                        sink.accept(p, b, r);
                        records++;
                    }
                }
            }
        }
    }
}
