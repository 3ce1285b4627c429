package io.kaas.storage.recovery;

import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.IndexFileFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The one writer of a recovery: applies the {@link RecoveryPlan.Writes} that {@link LogAnalysis} planned without
 * writing anything, in an order a crash at any point leaves recoverable: the quarantine first (fsynced before
 * any byte it saves is removed), then stale files removed, salvaged segments rewritten, torn tails cut and
 * fsynced, indexes that differ rewritten, the directory fsynced, then log-start.json, the manifest and the
 * checkpoint. A dry run never gets here. When a write fails half-way the error names every file already
 * changed, so the operator knows what the failed run left. One instance per apply, one thread.
 */
final class PlanApply {
    private final RecoveryPlan.Writes w;
    /** Files created, replaced, cut or removed so far, in order. */
    private final List<Path> changed = new ArrayList<>();

    private PlanApply(RecoveryPlan.Writes w) {
        this.w = w;
    }

    /** @throws StorageException IO naming the files already changed when a write fails */
    static void apply(RecoveryPlan.Writes w) {
        PlanApply a = new PlanApply(w);
        try {
            a.run();
        } catch (IOException | StorageException e) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    w.dir() + ": recovery failed: " + IoFailure.describe(e) + "; " + a.changedSoFar(),
                    e);
        }
    }

    /** What a failed apply says it left: the files it changed before the failure. */
    private String changedSoFar() {
        if (changed.isEmpty()) {
            return "no file was changed";
        }
        List<String> names = new ArrayList<>();
        changed.forEach(f -> names.add(f.toString()));
        return "already changed: " + String.join(", ", names);
    }

    private void run() throws IOException {
        if (!w.quarantine().isEmpty()) {
            w.quarantine().write();
            changed.add(w.quarantine().dir());
        }
        boolean dirChanged = false;
        for (Path f : w.removals()) {
            if (Files.deleteIfExists(f)) {
                changed.add(f);
                dirChanged = true;
            }
        }
        List<SegmentPlan> plans = w.segments();
        for (int i = 0; i < plans.size(); i++) {
            SegmentPlan p = plans.get(i);
            boolean last = i == plans.size() - 1;
            if (p.create) {
                try (FileChannel ch =
                        FileChannel.open(p.log, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
                changed.add(p.log);
                dirChanged = true;
            }
            if (p.rewrite) {
                rewrite(p);
            }
            // A closed segment is cut only when it holds a fenced ex-leader's late writes (fenceLateWrites).
            if ((last && (p.validEnd < p.size || p.scanned > 0)) || (!last && p.stop == null && p.validEnd < p.size)) {
                try (FileChannel ch = FileChannel.open(p.log, StandardOpenOption.WRITE)) {
                    if (p.validEnd < p.size) {
                        ch.truncate(p.validEnd);
                        if (!changed.contains(p.log)) {
                            changed.add(p.log);
                        }
                    }
                    // The checkpoint written below claims [0, validEnd) is durable: make it so.
                    ch.force(true);
                }
            }
            if (p.indexDiffers()) {
                IndexFileFormat.writeAtomically(p.index, p.name.baseOffset(), p.entries);
                changed.add(p.index);
            }
        }
        if (dirChanged) {
            AtomicFile.fsyncDirectory(w.dir());
        }
        if (w.logStartCopy() != null) {
            // before the manifest, as every log start move
            write(w.dir().resolve(LogStart.FILE_NAME), w.logStartCopy());
        }
        if (!w.after().equals(w.before())) {
            write(w.dir().resolve(Manifest.FILE_NAME), w.after());
        }
        if (w.newCheckpoint() != null && !w.newCheckpoint().equals(w.oldCheckpoint())) {
            write(w.dir().resolve(RecoveryCheckpoint.FILE_NAME), w.newCheckpoint());
        }
    }

    private void write(Path file, Object state) {
        StateJson.write(file, state);
        changed.add(file);
    }

    /**
     * Rewrites a salvaged segment without its bad ranges (tmp, fsync, rename, directory fsync). Its
     * index goes first: a crash after the rename must not leave an index pointing at the old positions (a
     * missing index is rebuilt; the caller writes the new one after this).
     */
    private void rewrite(SegmentPlan p) throws IOException {
        Path tmp = p.log.resolveSibling(p.log.getFileName() + ".salvage.tmp");
        try (FileChannel in = FileChannel.open(p.log, StandardOpenOption.READ);
                FileChannel out = FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            long at = 0;
            for (SegmentLogScan.BadRange r : p.bad) {
                copy(in, out, at, r.start());
                at = r.end();
            }
            copy(in, out, at, p.size);
            out.force(true);
        }
        if (Files.deleteIfExists(p.index)) {
            changed.add(p.index);
            AtomicFile.fsyncDirectory(p.log.getParent());
        }
        Files.move(tmp, p.log, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        changed.add(p.log);
        AtomicFile.fsyncDirectory(p.log.getParent());
    }

    private static void copy(FileChannel in, FileChannel out, long from, long to) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(1 << 20, Math.max(1, to - from)));
        long at = from;
        while (at < to) {
            buf.clear();
            buf.limit((int) Math.min(buf.capacity(), to - at));
            int r = in.read(buf, at);
            if (r < 0) {
                throw new IOException("file ended at byte " + at + ", before " + to);
            }
            buf.flip();
            while (buf.hasRemaining()) {
                out.write(buf);
            }
            at += r;
        }
    }
}
