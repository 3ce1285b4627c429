package io.kaas.storage;

import io.kaas.storage.format.MoveSource;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The copy a log dir move makes of a partition's directory, in rounds, while the partition is served: each round
 * copies what changed since the last. A segment log is append-only while it keeps its inode, so a round copies only
 * its new tail; a log replaced under the same name (a cleaner swap) or cut shorter is copied again whole; every other
 * file (indexes, state files) is copied again whenever it changed. Files gone from the source go from the copy.
 * Every file written is fsynced before the round returns; the staging directory's own fsync is
 * {@link io.kaas.storage.layout.PartitionMove#commit}'s.
 *
 * <p>Used by one mover thread; the last round runs with the partition closed, so nothing changes under it.
 */
final class PartitionCopy {
    private static final int BUFFER_BYTES = 1 << 20;

    /**
     * The copy is fsynced every this many bytes, not once per file. Ext4 (data=ordered) commits a file's newly
     * written blocks with the journal transaction that an appending producer's fdatasync must also wait for: one
     * fsync of a 256 MiB segment copy held every acks=all append on the disk for seconds. Small steps bound what a
     * produce fsync can find queued ahead of it to one step's writeback.
     */
    static final long FSYNC_STEP_BYTES = 8L << 20;

    /** What was copied of one source file: which file it was (inode, when the file system says) and how much. */
    private record Copied(Object key, long modifiedMs, long bytes) {}

    private final Path source;
    private final Path target;
    private final Map<String, Copied> copied = new HashMap<>();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
    private volatile long copiedBytes;
    /** The lowest base offset of a segment not wholly copied yet, or -1 when every segment was. */
    private volatile long firstIncompleteBase = -1;

    PartitionCopy(Path source, Path target) {
        this.source = source;
        this.target = target;
    }

    /**
     * One round; returns the bytes it copied. The {@code last} one (the partition closed) copies every file but the
     * segment logs again whole, whatever its size and time say: a state file rewritten in place within the time's
     * granularity must not be missed.
     */
    long round(boolean last) throws IOException {
        long written = 0;
        Set<String> seen = new HashSet<>();
        long incomplete = Long.MAX_VALUE;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(source, Files::isRegularFile)) {
            for (Path file : ds) {
                String name = file.getFileName().toString();
                if (!copies(name)) {
                    continue;
                }
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(file, BasicFileAttributes.class);
                } catch (NoSuchFileException gone) {
                    continue; // retention or a swap took it: the next round sees what replaced it
                }
                seen.add(name);
                Copied before = copied.get(name);
                boolean log = name.endsWith(SegmentName.LOG_SUFFIX);
                long mtime = a.lastModifiedTime().toMillis();
                boolean same = before != null && Objects.equals(before.key(), a.fileKey());
                try {
                    if (log && same && before.bytes() <= a.size()) {
                        written += copyRange(file, name, before.bytes(), a.size());
                    } else if (last
                            || before == null
                            || !same
                            || before.modifiedMs() != mtime
                            || before.bytes() != a.size()) {
                        written += copyRange(file, name, 0, a.size());
                    }
                } catch (NoSuchFileException gone) {
                    seen.remove(name);
                    continue;
                }
                copied.put(name, new Copied(a.fileKey(), mtime, a.size()));
                if (log && Files.size(file) > a.size()) {
                    incomplete = Math.min(
                            incomplete,
                            SegmentName.parse(name).map(SegmentName::baseOffset).orElse(0L));
                }
            }
        }
        for (String name : Set.copyOf(copied.keySet())) {
            if (!seen.contains(name)) {
                copied.remove(name);
                Files.deleteIfExists(target.resolve(name));
            }
        }
        copiedBytes = copied.values().stream().mapToLong(Copied::bytes).sum();
        firstIncompleteBase = incomplete == Long.MAX_VALUE ? -1 : incomplete;
        return written;
    }

    /** The bytes the copy holds as of the last round. */
    long copiedBytes() {
        return copiedBytes;
    }

    /** See {@link #firstIncompleteBase}. */
    long firstIncompleteBase() {
        return firstIncompleteBase;
    }

    /** Not the owner lock, a temporary file of an atomic write, or a mark of an earlier move. */
    private static boolean copies(String name) {
        return !name.equals(OwnerLock.FILE_NAME)
                && !name.endsWith(AtomicFile.TMP_SUFFIX)
                && !name.equals(MoveSource.FILE_NAME);
    }

    /**
     * Copies {@code [from, to)} of {@code file} to the same place in the copy (cut to {@code to}), fsyncing every
     * {@link #FSYNC_STEP_BYTES} and at the end.
     */
    private long copyRange(Path file, String name, long from, long to) throws IOException {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
                FileChannel out =
                        FileChannel.open(target.resolve(name), StandardOpenOption.WRITE, StandardOpenOption.CREATE)) {
            if (out.size() > to || from == 0) {
                out.truncate(from == 0 ? 0 : to);
            }
            long pos = from;
            long unsynced = 0;
            while (pos < to) {
                buffer.clear();
                buffer.limit((int) Math.min(BUFFER_BYTES, to - pos));
                int n = in.read(buffer, pos);
                if (n < 0) {
                    break; // cut shorter meanwhile: the next round copies it again
                }
                buffer.flip();
                while (buffer.hasRemaining()) {
                    int w = out.write(buffer, pos);
                    pos += w;
                    unsynced += w;
                }
                if (unsynced >= FSYNC_STEP_BYTES) {
                    out.force(false);
                    unsynced = 0;
                }
            }
            out.force(true);
            return pos - from;
        }
    }
}
