package io.kaas.storage;

import io.kaas.storage.segment.FileSlice;
import java.nio.ByteBuffer;

/**
 * Whole batches starting at or before the fetch offset, exactly as stored (baseOffset and
 * partitionLeaderEpoch as assigned, everything else as the client sent it), either copied into
 * {@code records} or, from {@link PartitionLog#readForTransfer}, as a {@code file} region (then
 * {@code records} is empty). Nothing readable at or beyond the fetch offset under the read cap means
 * empty {@code records} and a null {@code file}.
 */
public record FetchResult(ByteBuffer records, FileSlice file, PartitionState state) {
    public FetchResult(ByteBuffer records, PartitionState state) {
        this(records, null, state);
    }

    /** Bytes of batches in this result, however they are held. */
    public int sizeInBytes() {
        return file != null ? file.length() : records.remaining();
    }
}
