package io.kaas.recovery;

import io.kaas.storage.layout.SegmentFile;
import java.util.List;

/**
 * The log end offset of a partition read from its files, not from the manifest (which lags by
 * design): the offset after the last valid batch of the newest non-empty segment, or the base offset
 * of an empty active segment (rolled, nothing appended yet).
 */
public final class LogEnd {
    private LogEnd() {}

    /** Log end of {@code segments} (oldest first), or {@code fallback} when there are none. */
    public static long of(List<SegmentFile> segments, long fallback) {
        for (int i = segments.size() - 1; i >= 0; i--) {
            SegmentSummary s = SegmentSummary.scan(segments.get(i));
            if (!s.isEmpty()) {
                return Math.max(s.nextOffset(), segments.get(segments.size() - 1).baseOffset());
            }
        }
        return segments.isEmpty() ? fallback : segments.get(segments.size() - 1).baseOffset();
    }
}
