package io.kaas.storage.segment;

import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;

/**
 * A batch a {@link BatchScanner} found valid. {@code bytes} is a read-only view of the whole batch
 * that stays valid only until the scanner's next call.
 */
public record ScannedBatch(long position, RecordBatchHeader header, ByteBuffer bytes) {
    public int sizeInBytes() {
        return header.sizeInBytes();
    }

    public long nextPosition() {
        return position + header.sizeInBytes();
    }
}
