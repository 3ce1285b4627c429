package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * {@code <partition>/manifest.json}. Lags by design: written on open and close, not per append or
 * roll; recovery treats the log as authoritative and reconciles it. The one exception is
 * logStartOffset, which DeleteRecords writes before it acknowledges (an acknowledged purge must
 * survive a power cut).
 */
@JsonPropertyOrder({"epoch", "highWatermark", "logStartOffset"})
public record Manifest(int epoch, long highWatermark, long logStartOffset) {
    public static final String FILE_NAME = "manifest.json";
}
