package io.kaas.storage;

import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.segment.FileSlice;
import io.kaas.storage.segment.Segment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Segments that retention or DeleteRecords removed: closed and unlinked at once, the directory fsynced
 * (unlinked files leave nothing behind for recovery). No delay is needed for a Fetch response still
 * sending a {@link FileSlice} of one: the slice holds a counted reference to the log's channel, which
 * closes (and frees the inode) only when the send lets go of it.
 */
final class RemovedSegments {
    private static final Logger LOG = LoggerFactory.getLogger(RemovedSegments.class);

    private RemovedSegments() {}

    /** Closes and unlinks {@code removed}. Runs outside the partition lock. */
    static void closeAndUnlink(TopicPartition id, Path dir, List<Segment> removed) {
        if (removed.isEmpty()) {
            return;
        }
        try {
            for (Segment s : removed) {
                s.closeAndUnlink();
            }
            AtomicFile.fsyncDirectory(dir);
        } catch (IOException e) {
            LOG.warn(
                    "{}: could not remove old segments (they are below log start and will be removed at next open): {}",
                    id,
                    e.toString());
        }
    }
}
