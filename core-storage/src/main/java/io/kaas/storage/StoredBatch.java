package io.kaas.storage;

import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;

/**
 * A read-only copy of one whole stored batch, for the ListOffsets lookups that must look at record
 * timestamps (the broker decodes it; core-storage never does), with the log start offset of the view it
 * was read from (records below it are gone).
 */
public record StoredBatch(RecordBatchHeader header, ByteBuffer bytes, long logStartOffset) {}
