package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * {@code <partition>/recovery-checkpoint.json}: everything up to {@code bytePos} of the segment whose
 * base offset is {@code segmentBase} is fsynced, and the next offset after it is
 * {@code highWatermark}. A pure hint: a missing or stale one only costs a full scan of the active segment.
 */
@JsonPropertyOrder({"segmentBase", "bytePos", "highWatermark"})
public record RecoveryCheckpoint(long segmentBase, long bytePos, long highWatermark) {
    public static final String FILE_NAME = "recovery-checkpoint.json";
}
