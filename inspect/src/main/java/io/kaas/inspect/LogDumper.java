package io.kaas.inspect;

import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfigFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.BatchScanner;
import io.kaas.storage.segment.ScannedBatch;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Dumps one {@code .log} file batch by batch. Reads with core-storage's {@link BatchScanner}; where the
 * scanner stops on a batch it can step over ({@link BatchScanner#canStepOver}: bad CRC, offsets going
 * backwards, bad magic, inside a whole frame) the batch is still shown (isvalid: false unless only its
 * offsets are wrong) and the walk goes on after it, as Apache's tool does.
 * Anything else that stops the scan (short batch, zero-filled tail, garbage) is reported as
 * "N invalid bytes at position P", never as an exception.
 *
 * <p>Leader epochs (several brokers over one directory): a segment named with epoch E whose partition's
 * {@code leader-epoch-checkpoint.json} records a later epoch starting at offset X may hold batches at or past X
 * only as a fenced ex-leader's late writes, which recovery discards. Those batches are still shown, after one
 * warning naming them as such, and count as a problem (as {@code kaas verify} reports them).
 */
final class LogDumper {
    private final DumpOptions options;
    private final DumpOutput out;
    private final RecordDecoder decoder;

    LogDumper(DumpOptions options, DumpOutput out) {
        this.options = options;
        this.out = out;
        this.decoder = new RecordDecoder(options.printDataLog(), options.hex());
    }

    /** Returns the number of problems found (invalid bytes, bad CRCs, offsets going backwards). */
    int dump(Path log) throws IOException {
        Optional<SegmentName> name = SegmentName.parse(log.getFileName().toString());
        long baseOffset = name.map(SegmentName::baseOffset).orElse(0L);
        name.ifPresent(n -> out.emit(new Events.LogStart(log, n.baseOffset())));
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            long size = ch.size();
            Path index = log.resolveSibling(name.map(SegmentName::indexFileName).orElse("-"));
            long start = IndexSeek.position(index, baseOffset, options.fromOffset(), size);
            boolean compacted = compacted(log);
            long epochEnd = name.filter(n -> !n.apacheStyle())
                    .map(n -> epochEnd(log, n.epoch()))
                    .orElse(Long.MAX_VALUE);
            Walk walk = new Walk(log, ch, size, start, compacted, epochEnd);
            int problems = walk.run();
            if (walk.batchesSeen == 0 && start > 0) {
                out.emit(new Events.Message(
                        "warning",
                        log,
                        log + ": index entry led to position " + start
                                + ", which is not a batch; reading from the start",
                        true));
                problems = new Walk(log, ch, size, 0, compacted, epochEnd).run();
            }
            return problems;
        }
    }

    /** The log belongs to a compacted topic, whose offsets may skip (cleaned records): not worth a warning there. */
    private static boolean compacted(Path log) {
        Path partition = log.toAbsolutePath().getParent();
        try {
            return partition != null
                    && TopicConfigFile.ofPartitionDir(partition).compacted();
        } catch (StorageException e) {
            return false;
        }
    }

    /**
     * The first offset {@code epoch} may not hold per the partition's leader-epoch checkpoint (the start of a later
     * epoch), or {@link Long#MAX_VALUE}: no checkpoint (one broker, or a copied segment), or one that cannot be read
     * (not this file's verdict; {@code kaas verify} names it).
     */
    private static long epochEnd(Path log, int epoch) {
        Path partition = log.toAbsolutePath().getParent();
        if (partition == null) {
            return Long.MAX_VALUE;
        }
        try {
            return StateJson.read(partition.resolve(LeaderEpochCheckpoint.FILE_NAME), LeaderEpochCheckpoint.class)
                    .map(c -> c.endOf(epoch))
                    .orElse(Long.MAX_VALUE);
        } catch (StorageException e) {
            return Long.MAX_VALUE;
        }
    }

    /** One pass from a start position to the end of the window. */
    private final class Walk {
        private final Path log;
        private final FileChannel ch;
        private final long size;
        private final long start;
        private final long end;
        private int batchesSeen;
        private int problems;
        private long lastRecordOffset = Long.MIN_VALUE;
        private final boolean compacted;
        private final long epochEnd;
        private boolean fencedReported;

        Walk(Path log, FileChannel ch, long size, long start, boolean compacted, long epochEnd) {
            this.compacted = compacted;
            this.epochEnd = epochEnd;
            this.log = log;
            this.ch = ch;
            this.size = size;
            this.start = start;
            this.end = options.maxBytes() == Long.MAX_VALUE ? size : Math.min(size, start + options.maxBytes());
        }

        int run() throws IOException {
            BatchScanner scanner = new BatchScanner(ch, log, start, end, Long.MIN_VALUE);
            while (true) {
                for (ScannedBatch b = scanner.next(); b != null; b = scanner.next()) {
                    if (!show(b.position(), b.header(), true, b.bytes())) {
                        return problems;
                    }
                }
                CorruptBatchException stop = scanner.stopReason();
                if (stop == null) {
                    return problems;
                }
                long pos = scanner.position();
                if (batchesSeen == 0 && pos == start && start > 0) {
                    return problems; // the caller retries from 0
                }
                ScannedBatch bad = scanner.stepOver();
                if (bad == null) {
                    reportTail(scanner, stop, pos);
                    return problems;
                }
                problems++;
                out.emit(new Events.Message("warning", log, log + ":" + pos + ": " + stop.getMessage(), true));
                // only a batch whose CRC matched (bad offsets) has records worth decoding
                if (!show(
                        pos,
                        bad.header(),
                        stop.reason() == CorruptBatchException.Reason.BAD_OFFSET_RANGE,
                        bad.bytes())) {
                    return problems;
                }
            }
        }

        private void reportTail(BatchScanner scanner, CorruptBatchException stop, long pos) throws IOException {
            if (end < size) {
                return; // the window ends inside a batch: not a verdict on the file
            }
            problems++;
            out.emit(new Events.InvalidBytes(log, pos, size - pos, scanner.tailIsZeros(), stop.getMessage()));
        }

        /** Prints a batch (and its records); false once past --to-offset. */
        private boolean show(long position, RecordBatchHeader h, boolean valid, ByteBuffer bytes) {
            if (h.baseOffset() > options.toOffset()) {
                return false;
            }
            batchesSeen++;
            if (h.lastOffset() < options.fromOffset()) {
                return true;
            }
            if (h.lastOffset() >= epochEnd && !fencedReported) {
                fencedReported = true;
                problems++;
                out.emit(new Events.Message(
                        "fenced_writes",
                        log,
                        log + ":" + position + ": offsets from "
                                + Math.max(h.baseOffset(), epochEnd) + " on were written by leader epoch "
                                + SegmentName.parse(log.getFileName().toString())
                                        .map(SegmentName::epoch)
                                        .orElse(-1) + " after a later epoch began at offset "
                                + epochEnd
                                + " (leader-epoch-checkpoint.json): a fenced ex-leader's late writes, which recovery discards",
                        true));
            }
            out.emit(new BatchLine(log, position, h, valid));
            if (options.decodeRecords() && valid) {
                decoder.decode(log, bytes, this::record);
            }
            return true;
        }

        private void record(RecordLine r) {
            if (lastRecordOffset != Long.MIN_VALUE && r.offset() != lastRecordOffset + 1 && !compacted) {
                out.emit(new Events.Message(
                        "non_consecutive",
                        log,
                        "Non-consecutive offsets in " + log + ": " + lastRecordOffset + " is followed by " + r.offset(),
                        true));
            }
            lastRecordOffset = r.offset();
            out.emit(r);
        }
    }
}
