package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * {@code <partition>/log-start.json}: the second durable copy of the log start, written (atomically,
 * durably) just before manifest.json every time the log start advances (DeleteRecords, retention,
 * offline delete-records). One damaged manifest then cannot bring deleted records back: recovery takes
 * the highest log start any readable copy records. {@code highWatermark} is the log end when it was
 * written, which is what lets a log start past the recovered log end be an acknowledged purge that
 * outran unsynced data rather than damage.
 */
@JsonPropertyOrder({"version", "logStartOffset", "highWatermark"})
public record LogStart(int version, long logStartOffset, long highWatermark) {
    public static final String FILE_NAME = "log-start.json";
    public static final int VERSION = 1;

    public static LogStart of(Manifest manifest) {
        return new LogStart(VERSION, manifest.logStartOffset(), manifest.highWatermark());
    }
}
