package io.kaas.storage;

import io.kaas.storage.format.BatchValidator;
import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One Produce entry's batches, validated (header checks and CRC-32C, {@link BatchValidator#validateProduced})
 * on the caller's thread before the partition lock is taken: their headers and start positions in
 * {@code buffer}.
 */
record ProducedBatches(
        ByteBuffer buffer, List<RecordBatchHeader> headers, int[] starts, long totalBytes, long recordCount) {
    static ProducedBatches parse(ByteBuffer buf) {
        List<RecordBatchHeader> headers = new ArrayList<>(1);
        int[] starts = new int[4];
        int pos = buf.position();
        long records = 0;
        while (pos < buf.limit()) {
            RecordBatchHeader h = BatchValidator.validateProduced(buf, pos, buf.limit());
            if (headers.size() == starts.length) {
                starts = Arrays.copyOf(starts, starts.length * 2);
            }
            starts[headers.size()] = pos;
            headers.add(h);
            records += h.recordCount();
            pos += h.sizeInBytes();
        }
        if (headers.isEmpty()) {
            throw new CorruptBatchException(CorruptBatchException.Reason.TRUNCATED, 0, "no batch in the records");
        }
        return new ProducedBatches(buf, headers, starts, buf.limit() - buf.position(), records);
    }
}
