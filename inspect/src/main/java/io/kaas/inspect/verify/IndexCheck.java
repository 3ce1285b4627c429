package io.kaas.inspect.verify;

import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexFileFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks a segment's {@code .index} against the batches its log really holds: every entry must point
 * at the start of a valid batch and carry an offset inside that batch (Apache writes the batch's last
 * offset, the original its base offset; both are right), entries strictly increasing.
 */
final class IndexCheck {
    private final VerifyReport report;

    IndexCheck(VerifyReport report) {
        this.report = report;
    }

    void check(SegmentFile segment, BatchMap batches) throws IOException {
        check(segment, batches, Long.MAX_VALUE, () -> false, false);
    }

    /**
     * @param logSize the log's size when verify started: an entry at or past it is for bytes appended since, not
     *                an error, when {@code live} says a broker holds the partition
     * @param active  the active segment, whose index may end in an entry being written while the partition is live
     */
    void check(
            SegmentFile segment,
            BatchMap batches,
            long logSize,
            java.util.function.BooleanSupplier live,
            boolean active)
            throws IOException {
        Path index = segment.index();
        if (!Files.exists(index)) {
            if (batches.count() > 0) {
                report.problem(index, -1, "missing index for a non-empty segment (recover or rebuild-index writes it)");
            }
            return;
        }
        long size = Files.size(index);
        if (size % IndexFileFormat.ENTRY_SIZE != 0 && !(active && live.getAsBoolean())) {
            report.problem(
                    index,
                    size - size % IndexFileFormat.ENTRY_SIZE,
                    (size % IndexFileFormat.ENTRY_SIZE) + " trailing bytes are not a whole 8-byte entry");
        }
        IndexEntry[] entries = IndexFileFormat.readAll(index, segment.baseOffset());
        for (int i = 0; i < entries.length; i++) {
            IndexEntry e = entries[i];
            long at = (long) i * IndexFileFormat.ENTRY_SIZE;
            if (i > 0 && e.offset() == segment.baseOffset() && e.position() == 0) {
                return; // Apache preallocates an active segment's index with zeros: the entries end here
            }
            if (i > 0 && (e.offset() <= entries[i - 1].offset() || e.position() <= entries[i - 1].position())) {
                report.problem(
                        index,
                        at,
                        "entry " + i + " (offset " + e.offset() + ", position " + e.position()
                                + ") does not increase over entry " + (i - 1) + " (offset " + entries[i - 1].offset()
                                + ", position " + entries[i - 1].position() + ")");
                return; // the rest of a scrambled index only repeats the same news
            }
            int b = batches.batchAt(e.position());
            if (b < 0
                    && (e.position() >= logSize || active && e.position() >= batches.endPosition())
                    && live.getAsBoolean()) {
                return; // indexes bytes appended since verify started (or being appended): the rest are later still
            }
            if (b < 0) {
                report.problem(
                        index,
                        at,
                        "entry " + i + " (offset " + e.offset() + ") points at log position " + e.position()
                                + ", which is not the start of a valid batch in "
                                + segment.log().getFileName());
            } else if (e.offset() < batches.baseOffset(b) || e.offset() > batches.lastOffset(b)) {
                report.problem(
                        index,
                        at,
                        "entry " + i + " says offset " + e.offset() + " is at position " + e.position()
                                + ", but the batch there holds offsets " + batches.baseOffset(b) + ".."
                                + batches.lastOffset(b));
            }
        }
    }
}
