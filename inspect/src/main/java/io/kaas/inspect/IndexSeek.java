package io.kaas.inspect;

import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexFileFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where to start reading a log for a target offset: the position of the last index entry whose
 * offset is at most the target. Index entries hold an offset inside the batch at their position
 * (Apache writes the batch's last offset, the original its base offset), so every batch before that
 * position ends before the target. A missing or insane index gives position 0: slower, never wrong.
 */
public final class IndexSeek {
    private IndexSeek() {}

    public static long position(Path index, long baseOffset, long target, long logSize) {
        if (target == Long.MIN_VALUE || !Files.isRegularFile(index)) {
            return 0;
        }
        IndexEntry[] entries;
        try {
            entries = IndexFileFormat.readAll(index, baseOffset);
        } catch (IOException e) {
            return 0;
        }
        long best = 0;
        long prevOffset = Long.MIN_VALUE;
        int prevPos = -1;
        for (IndexEntry e : entries) {
            if (prevPos >= 0 && e.offset() == baseOffset && e.position() == 0) {
                break; // zero-filled preallocated tail of an Apache index
            }
            if (e.offset() <= prevOffset || e.position() <= prevPos || e.position() >= logSize) {
                return 0; // not strictly increasing or pointing outside the log: do not trust any of it
            }
            if (e.offset() <= target) {
                best = e.position();
            }
            prevOffset = e.offset();
            prevPos = e.position();
        }
        return best;
    }
}
