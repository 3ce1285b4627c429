package io.kaas.storage.segment;

import io.kaas.storage.TestBatches;
import io.kaas.storage.format.RecordBatchHeader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** A log's bytes built from real batches, with the start of each batch known, for walker tests. */
final class SegmentBytes {
    final byte[] bytes;
    final List<Long> starts;

    private SegmentBytes(byte[] bytes, List<Long> starts) {
        this.bytes = bytes;
        this.starts = starts;
    }

    /** Batches of {@code recordCounts[i]} records each, offsets contiguous from {@code baseOffset}. */
    static SegmentBytes of(long baseOffset, int... recordCounts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Long> starts = new ArrayList<>();
        long offset = baseOffset;
        for (int i = 0; i < recordCounts.length; i++) {
            ByteBuffer b = TestBatches.batch(recordCounts[i], 1_000L * (i + 1));
            RecordBatchHeader.assignOffsetAndEpoch(b, 0, offset, 0);
            offset += recordCounts[i];
            starts.add((long) out.size());
            out.write(b.array(), b.arrayOffset(), b.limit());
        }
        return new SegmentBytes(out.toByteArray(), starts);
    }

    long start(int batch) {
        return starts.get(batch);
    }

    /** Byte position just after batch {@code batch}. */
    long end(int batch) {
        return batch + 1 < starts.size() ? starts.get(batch + 1) : bytes.length;
    }

    SegmentBytes withBytes(byte[] replaced) {
        return new SegmentBytes(replaced, starts);
    }

    FileChannel open(Path file) throws IOException {
        Files.write(file, bytes);
        return FileChannel.open(file, StandardOpenOption.READ);
    }
}
