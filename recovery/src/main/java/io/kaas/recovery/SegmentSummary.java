package io.kaas.recovery;

import io.kaas.storage.StorageException;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.segment.BatchScanner;
import io.kaas.storage.segment.ScannedBatch;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What a read-only, CRC-checked walk of one log file found: where its valid part ends and which
 * offsets it holds. Uses core-storage's {@link BatchScanner}, the reader the broker's recovery uses,
 * so offline tools and the broker agree on where the log ends.
 *
 * @param firstOffset base offset of the first valid batch, -1 when there is none
 * @param nextOffset  offset after the last valid batch, -1 when there is none
 */
public record SegmentSummary(SegmentFile segment, long fileSize, long validBytes, int batches, long records,
                             long firstOffset, long nextOffset) {

    public boolean isEmpty() {
        return batches == 0;
    }

    public static SegmentSummary scan(SegmentFile segment) {
        Path log = segment.log();
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            BatchScanner scanner = BatchScanner.ofWholeFile(ch, log, segment.baseOffset());
            int batches = 0;
            long records = 0;
            long first = -1;
            long next = -1;
            for (ScannedBatch b = scanner.next(); b != null; b = scanner.next()) {
                if (batches == 0) {
                    first = b.header().baseOffset();
                }
                batches++;
                records += b.header().recordCount();
                next = b.header().nextOffset();
            }
            return new SegmentSummary(segment, ch.size(), scanner.position(), batches, records, first, next);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, log + ": cannot read: " + PartitionSegments.describe(e), e);
        }
    }
}
