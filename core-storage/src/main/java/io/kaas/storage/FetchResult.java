package io.kaas.storage;

import java.nio.ByteBuffer;

/**
 * Whole batches starting at or before the fetch offset, exactly as stored (baseOffset and
 * partitionLeaderEpoch as assigned, everything else as the client sent it). {@code records} is empty
 * when there is nothing at or beyond the fetch offset under the read cap.
 */
public record FetchResult(ByteBuffer records, PartitionState state) {}
