package io.kaas.storage;

import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.segment.Segment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Segments that retention or DeleteRecords removed: unlinked at once (the directory fsync makes that
 * durable) but closed only after {@link #CLOSE_DELAY}, because a Fetch response may still be sending
 * a {@link FileSlice} of one. Unlinked files leave nothing behind for recovery, even if the process
 * dies before the close.
 */
final class RemovedSegments {
    private static final Logger LOG = LoggerFactory.getLogger(RemovedSegments.class);
    /** How long a removed segment stays open after its files are unlinked (Kafka's file.delete.delay.ms). */
    static final Duration CLOSE_DELAY = Duration.ofSeconds(60);

    private final TopicPartition id;
    private final Path dir;
    /** Closes removed segments after the delay; a close is quick and never waits on the disk's flush queue. */
    private final ScheduledExecutorService timer;
    private final ConcurrentLinkedQueue<Segment> stillOpen = new ConcurrentLinkedQueue<>();

    RemovedSegments(TopicPartition id, Path dir, ScheduledExecutorService timer) {
        this.id = id;
        this.dir = dir;
        this.timer = timer;
    }

    /** Unlinks {@code removed} now and closes them after the delay. Runs outside the partition lock. */
    void unlinkAndCloseLater(List<Segment> removed) {
        if (removed.isEmpty()) {
            return;
        }
        try {
            for (Segment s : removed) {
                stillOpen.add(s);
                s.unlinkKeepOpen();
            }
            AtomicFile.fsyncDirectory(dir);
        } catch (IOException e) {
            LOG.warn("{}: could not remove old segments (they are below log start and will be removed at next open): {}", id, e.toString());
        }
        try {
            timer.schedule(() -> removed.forEach(this::close), CLOSE_DELAY.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            removed.forEach(this::close); // the engine is closing: nothing will send from them
        }
    }

    /** Closes every removed segment now (partition close). */
    void closeAll() {
        for (Segment s : List.copyOf(stillOpen)) {
            close(s);
        }
    }

    int stillOpen() {
        return stillOpen.size();
    }

    private void close(Segment s) {
        if (stillOpen.remove(s)) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.warn("{}: closing removed segment {} failed: {}", id, s, e.toString());
            }
        }
    }
}
