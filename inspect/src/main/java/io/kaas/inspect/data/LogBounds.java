package io.kaas.inspect.data;

import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.layout.SegmentFile;
import java.util.List;

/**
 * A partition's log start and high watermark as its state files record them, without reading the log: kaas's
 * {@code manifest.json}, {@code log-start.json} and {@code recovery-checkpoint.json} (the highest of the copies:
 * each lags by design, none is ahead of what was written), or an Apache log dir's checkpoint files. The log start is
 * never below the first segment's base offset (segments below it were removed).
 *
 * @param highWatermark -1 when no file records one
 */
public record LogBounds(long logStartOffset, long highWatermark) {

    public static LogBounds read(PartitionDir p, List<SegmentFile> segments, ApacheCheckpoints apache) {
        long firstBase = segments.isEmpty() ? 0 : segments.get(0).baseOffset();
        long start;
        long hw;
        if (p.apache()) {
            String key = ApacheCheckpoints.key(p.topic(), p.partition());
            start = apache.logStarts().getOrDefault(key, 0L);
            hw = apache.highWatermarks().getOrDefault(key, -1L);
        } else {
            Manifest m = StateJson.read(p.path().resolve(Manifest.FILE_NAME), Manifest.class)
                    .orElse(null);
            LogStart ls = StateJson.read(p.path().resolve(LogStart.FILE_NAME), LogStart.class)
                    .orElse(null);
            RecoveryCheckpoint cp = StateJson.read(
                            p.path().resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class)
                    .orElse(null);
            start = Math.max(m == null ? 0 : m.logStartOffset(), ls == null ? 0 : ls.logStartOffset());
            hw = Math.max(m == null ? -1 : m.highWatermark(), cp == null ? -1 : cp.highWatermark());
        }
        return new LogBounds(Math.max(start, firstBase), hw);
    }
}
