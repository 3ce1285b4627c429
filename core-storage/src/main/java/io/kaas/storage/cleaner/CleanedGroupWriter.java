package io.kaas.storage.cleaner;

import io.kaas.storage.format.CleanerSwapIntent;
import io.kaas.storage.format.CodecSite;
import io.kaas.storage.format.CodecTripwire;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.layout.CleanerSwap;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexFileFormat;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongConsumer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * The copy pass: the segments to clean in groups of up to segment.bytes, each group filtered by
 * {@link CleanerFilter} through kafka-clients' {@link MemoryRecords#filterTo} into one new segment named as
 * its first ({@code .cleaned} log and index, the index entries by the broker's {@link
 * io.kaas.storage.segment.IndexPolicy}), fsynced with its directory, then handed to the swap commit, which
 * puts it in place atomically ({@link CleanerSwap}). A group that fails before its swap intent is written
 * leaves no {@code .cleaned} file behind.
 *
 * <p>Not thread-safe: one per {@link LogCleaner}, on its thread (it reads through the cleaner's buffers).
 */
final class CleanedGroupWriter {
    private final CleanerOptions options;
    private final CleanerBuffers buffers;
    private final LogCleaner.SwapCommit swap;
    private final CodecTripwire tripwire;

    CleanedGroupWriter(
            CleanerOptions options, CleanerBuffers buffers, LogCleaner.SwapCommit swap, CodecTripwire tripwire) {
        this.options = options;
        this.buffers = buffers;
        this.swap = swap;
        this.tripwire = tripwire;
    }

    /**
     * Groups consecutive segments up to segment.bytes in all and 2^31 offsets from the group's base (an
     * index entry holds a 32-bit relative offset), oldest first.
     */
    List<List<SegmentName>> groups(Path dir, List<SegmentName> segments, List<SegmentName> all, long cleanableEnd)
            throws IOException {
        long maxBytes = Math.min(options.segmentBytes(), Integer.MAX_VALUE);
        List<List<SegmentName>> groups = new ArrayList<>();
        List<SegmentName> current = new ArrayList<>();
        long bytes = 0;
        for (SegmentName s : segments) {
            long size = Files.size(dir.resolve(s.logFileName()));
            int i = all.indexOf(s);
            long lastPossibleOffset = (i + 1 < all.size() ? all.get(i + 1).baseOffset() : cleanableEnd) - 1;
            boolean fits = !current.isEmpty()
                    && bytes + size <= maxBytes
                    && lastPossibleOffset - current.get(0).baseOffset() <= Integer.MAX_VALUE;
            if (!current.isEmpty() && !fits) {
                groups.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(s);
            bytes += size;
        }
        if (!current.isEmpty()) {
            groups.add(current);
        }
        return groups;
    }

    /**
     * Cleans {@code group} into one segment named as its first and commits its swap (with {@code dryRun}, reads
     * and filters only); returns the records kept. Segments not in {@code verified} get their batches checked.
     */
    long clean(
            Path dir,
            List<SegmentName> group,
            CleanerFilter filter,
            CleanerCounts counts,
            Set<SegmentName> verified,
            boolean dryRun,
            LongConsumer progress)
            throws IOException {
        SegmentName target = group.get(0);
        Path cleanedLog = CleanerSwap.cleanedLog(dir, target);
        Path cleanedIndex = CleanerSwap.cleanedIndex(dir, target);
        List<IndexEntry> entries = new ArrayList<>();
        long retained = 0;
        long outPosition = 0;
        long lastModified = 0;
        FileChannel out = null;
        try {
            if (!dryRun) {
                Files.deleteIfExists(cleanedLog);
                out = FileChannel.open(cleanedLog, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            }
            for (SegmentName source : group) {
                Path log = dir.resolve(source.logFileName());
                lastModified =
                        Math.max(lastModified, Files.getLastModifiedTime(log).toMillis());
                try (FileChannel in = FileChannel.open(log, StandardOpenOption.READ)) {
                    long size = in.size();
                    long position = 0;
                    long minBase = source.baseOffset();
                    while (position < size) {
                        MemoryRecords records = MemoryRecords.readableRecords(buffers.fill(in, position));
                        Set<Long> inputChecksums = new HashSet<>();
                        for (MutableRecordBatch batch : records.batches()) {
                            if (!verified.contains(source)) {
                                BatchIntegrity.checkCrc(batch, log, position);
                                minBase = BatchIntegrity.checkOffsets(batch, log, position, minBase);
                            }
                            inputChecksums.add(batch.checksum());
                        }
                        long decodedBefore = counts.recordsRead;
                        MemoryRecords.FilterResult result = records.filterTo(
                                filter, buffers.clearedWriteBuffer(), buffers.decompression(), Integer.MAX_VALUE);
                        if (counts.recordsRead > decodedBefore) {
                            tripwire.tripped(CodecSite.CLEANER_FILTER, counts.recordsRead - decodedBefore);
                        }
                        retained += result.messagesRetained();
                        ByteBuffer output = result.outputBuffer();
                        output.flip();
                        for (MutableRecordBatch kept : MemoryRecords.readableRecords(output.duplicate())
                                .batches()) {
                            IndexEntry last = entries.isEmpty() ? null : entries.get(entries.size() - 1);
                            if (options.indexPolicy().due(outPosition, last)) {
                                entries.add(new IndexEntry(kept.lastOffset(), (int) outPosition));
                            }
                            outPosition += kept.sizeInBytes();
                            // filterTo copies a batch it keeps whole verbatim (same CRC); any other
                            // batch in its output is one it rebuilt from the records it kept.
                            if (!inputChecksums.contains(kept.checksum())) {
                                tripwire.tripped(CodecSite.CLEANER_REBUILD, 1);
                            }
                        }
                        if (out != null) {
                            while (output.hasRemaining()) {
                                out.write(output);
                            }
                        }
                        buffers.keepOutputSize(output);
                        position += result.bytesRead();
                        counts.bytesRead += result.bytesRead();
                        progress.accept(result.bytesRead());
                        if (result.bytesRead() == 0) {
                            buffers.growFor(in, log, position);
                        }
                    }
                }
            }
            counts.bytesWritten += outPosition;
            if (out != null) {
                out.force(true);
                out.close();
                out = null;
                Files.setLastModifiedTime(cleanedLog, FileTime.fromMillis(lastModified));
                writeIndex(cleanedIndex, target, entries);
                AtomicFile.fsyncDirectory(dir);
                swap.commit(dir, target, group);
            }
            return retained;
        } catch (IOException | RuntimeException e) {
            if (out != null) {
                try {
                    out.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (!dryRun && !Files.exists(dir.resolve(CleanerSwapIntent.FILE_NAME))) {
                Files.deleteIfExists(cleanedLog);
                Files.deleteIfExists(cleanedIndex);
            }
            throw e;
        }
    }

    /** The cleaned segment's index, fsynced (the directory is fsynced after it). */
    private static void writeIndex(Path cleanedIndex, SegmentName target, List<IndexEntry> entries) throws IOException {
        try (FileChannel idx = FileChannel.open(
                cleanedIndex,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(IndexFileFormat.encode(target.baseOffset(), entries));
            while (bytes.hasRemaining()) {
                idx.write(bytes);
            }
            idx.force(true);
        }
    }
}
