package io.kaas.storage.cleaner;

import io.kaas.storage.segment.SegmentName;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The cleaner's check of the fields outside the CRC: a batch's base offset must not lie below the
 * previous batch's next offset (or the segment's base). The CRC cannot see a damaged base offset, and
 * cleaning would carry it into the new segment, so the pass refuses instead.
 */
final class BatchOffsetOrder {
    private BatchOffsetOrder() {}

    /** What is wrong with {@code batch} when the previous one ended below {@code minBase}, or empty. */
    static Optional<String> check(RecordBatch batch, long minBase) {
        if (batch.baseOffset() < minBase || batch.lastOffset() < batch.baseOffset()) {
            return Optional.of("base offset " + batch.baseOffset() + " is below the expected " + minBase
                    + " (a damaged base offset, outside the CRC)");
        }
        return Optional.empty();
    }

    /** The base offset in a segment file's name, or {@link Long#MIN_VALUE} when it has none. */
    static long baseOffsetOf(Path log) {
        return SegmentName.parse(log.getFileName().toString())
                .map(SegmentName::baseOffset)
                .orElse(Long.MIN_VALUE);
    }
}
