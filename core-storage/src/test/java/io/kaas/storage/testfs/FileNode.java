package io.kaas.storage.testfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A regular file's durable content (as of its last fsync) and the changes made since. Content is
 * guarded by {@code this}: the write path locks only the file, never the whole image.
 *
 * <p>A file that existed when the image was built and has not been opened for writing since is
 * "unmaterialized": its durable content is whatever the delegate holds, read only when needed, so
 * wrapping a directory with large files costs nothing until they are written.
 */
final class FileNode extends Node {
    private sealed interface Change permits Write, Truncate {}

    private record Write(long position, byte[] bytes) implements Change {}

    private record Truncate(long size) implements Change {}

    private ByteImage durable; // null while unmaterialized
    private final List<Change> unsynced = new ArrayList<>();
    /** Changes already applied to {@code durable}: sequence numbers of {@code unsynced} start here. */
    private long committed;

    private FileTime lastModified;

    private FileNode(ByteImage durable) {
        this.durable = durable;
    }

    /** A file found on the delegate: durable as it is. */
    static FileNode existing() {
        return new FileNode(null);
    }

    /** A file just created: empty until an fsync makes more of it durable. */
    static FileNode created() {
        return new FileNode(new ByteImage(new byte[0]));
    }

    /** Captures the durable content before anything can change it. {@code current} is the delegate path. */
    synchronized void materialize(Path current) throws IOException {
        if (durable == null) {
            durable = new ByteImage(Files.readAllBytes(current));
            lastModified = Files.getLastModifiedTime(current);
        }
    }

    synchronized void recordWrite(long position, ByteBuffer bytes) {
        byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        unsynced.add(new Write(position, copy));
    }

    synchronized void recordTruncate(long size) {
        unsynced.add(new Truncate(size));
    }

    /** A mark for {@link #syncUpTo}: the changes recorded so far. Taken just before an fsync starts. */
    synchronized long syncMark() {
        return committed + unsynced.size();
    }

    /**
     * fsync returned: every change recorded before {@code mark} is durable. Changes made while the
     * fsync ran may or may not be on disk; the model says not, the pessimistic answer.
     */
    synchronized void syncUpTo(long mark) throws IOException {
        if (durable == null) {
            return; // never written through us, so nothing is pending
        }
        int count = (int) Math.min(unsynced.size(), mark - committed);
        if (count <= 0) {
            return; // a concurrent fsync already covered these
        }
        List<Change> done = unsynced.subList(0, count);
        apply(durable, done);
        done.clear();
        committed += count;
    }

    /**
     * True if a power cut leaves this file exactly as the delegate holds it at {@code location}:
     * never written through us and still linked there, so the cut need not copy it.
     */
    synchronized boolean unchangedAt(Path location) {
        return durable == null && location.equals(currentPath());
    }

    /**
     * The content this file has after a power cut. Bytes appended since the last fsync are dropped or
     * torn as {@code tail} says; {@code random} picks the torn length.
     */
    synchronized byte[] contentAfterCut(TornTail tail, Random random) throws IOException {
        if (durable == null) {
            Path now = currentPath();
            if (now == null) {
                // Unreachable: unlinking materializes first. Empty is the safe, visible answer.
                return new byte[0];
            }
            return Files.readAllBytes(now);
        }
        byte[] base = durable.toArray();
        if (tail == TornTail.DROP || unsynced.isEmpty()) {
            return base;
        }
        ByteImage current = durable.copy();
        apply(current, unsynced);
        int extra = current.length() - base.length;
        if (extra <= 0) {
            return base;
        }
        int kept = random.nextInt(extra + 1);
        byte[] result = Arrays.copyOf(base, base.length + kept);
        if (tail == TornTail.KEEP_RANDOM_PREFIX) {
            byte[] all = current.toArray();
            System.arraycopy(all, base.length, result, base.length, kept);
        }
        return result;
    }

    /** The modification time to restore after a cut, or null if unknown. */
    synchronized FileTime modifiedTimeAfterCut() throws IOException {
        Path now = currentPath();
        if (now != null && Files.exists(now)) {
            return Files.getLastModifiedTime(now);
        }
        return lastModified;
    }

    private static void apply(ByteImage target, List<Change> changes) throws IOException {
        for (Change change : changes) {
            if (change instanceof Write w) {
                target.write(w.position(), ByteBuffer.wrap(w.bytes()));
            } else if (change instanceof Truncate t) {
                target.truncate(t.size());
            }
        }
    }
}
