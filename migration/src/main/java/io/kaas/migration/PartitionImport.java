package io.kaas.migration;

import io.kaas.migration.ApacheLogDir.ApachePartition;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.state.PartitionStateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.storage.internals.log.EpochEntry;

/**
 * One Apache partition into {@code <data>/<topic>/<n>/}: each segment's {@code .log} under kaas's name
 * ({@code {epoch:08x}-{base:020d}.log}, the epoch the leader-epoch checkpoint gives its base offset), the batch bytes
 * verbatim. Closed segments are hard-linked when the file system allows (else copied); the last segment is always
 * copied, because kaas appends to it and Apache's file must stay as it was. Copies keep the file's modification
 * time (retention and {@code segment.ms} read it).
 *
 * <p>Everything else is derived from the log by core-storage's recovery scan, exactly as {@code kaas recover} does:
 * first a dry run with every segment CRC-scanned, which refuses a damaged segment naming Apache's file and byte,
 * then the scan that writes the indexes, the producer-state and txn snapshots (so an idempotent producer continues
 * without a duplicate) and the manifest. The log start is Apache's ({@code log-start-offset-checkpoint}) when that
 * is above the first segment's base. A transaction the scan finds open gets its marker appended to the copied last
 * segment before the real scan: COMMIT when the coordinator had decided to commit, else ABORT (only when the run
 * allows it).
 */
final class PartitionImport {
    private static final RecoveryOptions CHECK = new RecoveryOptions(
            true,
            RecoveryOptions.DamagePolicy.REFUSE,
            new IndexPolicy(IndexPolicy.DEFAULT_INTERVAL_BYTES),
            false,
            0,
            true);

    /** What became of one partition. */
    record Result(
            String topic,
            int partition,
            int segments,
            long bytes,
            int linked,
            int copied,
            long logStartOffset,
            long logEndOffset,
            int producers,
            List<String> markers) {
        /** How the segments got there: "copies", "hard links", or both (closed segments linked, the last copied). */
        String transfer() {
            return PartitionImport.transfer(linked, copied);
        }
    }

    /** A transaction found open, and whether the run may end it. */
    interface OpenTransactionDecision {
        /** The marker to write for {@code producerId}'s open transaction, or an exception refusing the import. */
        ControlRecordType markerFor(ApachePartition partition, long producerId);
    }

    private PartitionImport() {}

    static List<Path> segments(ApachePartition p) {
        return ApacheBatches.segments(p.dir());
    }

    static Result run(
            ApachePartition p,
            Path target,
            List<EpochEntry> epochs,
            long apacheLogStart,
            boolean copyAll,
            OpenTransactionDecision decision) {
        List<Path> segments = segments(p);
        RecoveryScan.RecoveredState checked = check(p);
        int linked = 0;
        int copied = 0;
        long bytes = 0;
        Map<String, Path> apacheNameOf = new HashMap<>();
        try {
            AtomicFile.createDirectories(target);
            for (int i = 0; i < segments.size(); i++) {
                Path source = segments.get(i);
                long base = ApacheNames.baseOffsetOf(source);
                SegmentName name = SegmentName.of(epochAt(epochs, base), base);
                Path dest = target.resolve(name.logFileName());
                apacheNameOf.put(dest.toString(), source);
                bytes += Files.size(source);
                boolean last = i == segments.size() - 1;
                if (!last && !copyAll && link(source, dest)) {
                    linked++;
                } else {
                    Files.copy(source, dest, StandardCopyOption.COPY_ATTRIBUTES);
                    copied++;
                }
            }
            AtomicFile.fsyncDirectory(target);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, target + ": cannot write: " + e.getMessage(), e);
        }
        int epoch = epochs.isEmpty() ? 0 : epochs.get(epochs.size() - 1).epoch();
        List<String> markers = new ArrayList<>();
        TxnIndexSnapshot txns = checked.txns().snapshot();
        if (!txns.open().isEmpty()) {
            long next = checked.outcome().logEndOffset();
            Path last = segments.get(segments.size() - 1);
            Path active = target.resolve(
                    SegmentName.of(epochAt(epochs, ApacheNames.baseOffsetOf(last)), ApacheNames.baseOffsetOf(last))
                            .logFileName());
            for (TxnIndexSnapshot.Open open : txns.open()) {
                ControlRecordType type = decision.markerFor(p, open.producerId());
                ProducerStateSnapshot.Entry producer = checked.producers().entry(open.producerId());
                short producerEpoch = producer == null ? 0 : producer.epoch();
                appendMarker(active, next, epoch, open.producerId(), producerEpoch, type);
                markers.add(type + " producer " + open.producerId() + " at offset " + next);
                next++;
            }
        }
        RecoveryOptions write = new RecoveryOptions(
                false,
                RecoveryOptions.DamagePolicy.REFUSE,
                new IndexPolicy(IndexPolicy.DEFAULT_INTERVAL_BYTES),
                false,
                epoch,
                true);
        RecoveryScan.RecoveredState done = RecoveryScan.recoverState(target, write);
        refuseDamage(done, apacheNameOf);
        long logEnd = done.outcome().logEndOffset();
        long logStart = Math.max(done.outcome().logStartOffset(), Math.min(apacheLogStart, logEnd));
        new PartitionStateFiles(target).advanceLogStart(new Manifest(Math.max(epoch, 0), logEnd, logStart));
        return new Result(
                p.topic(),
                p.partition(),
                segments.size(),
                bytes,
                linked,
                copied,
                logStart,
                logEnd,
                done.producers().producerCount(),
                markers);
    }

    /**
     * Reads every byte of the Apache partition in place, changing nothing (a dry run of core-storage's recovery scan,
     * every segment CRC-checked): damage refuses the import with Apache's file and byte. What it finds open
     * (transactions, producers) is what the import carries.
     */
    static RecoveryScan.RecoveredState check(ApachePartition p) {
        return check(p.dir());
    }

    /**
     * The same in-place check of any partition dir, Apache's or kaas's (what export runs before it writes): damage,
     * or a log that does not end cleanly, refuses.
     */
    static RecoveryScan.RecoveredState check(Path partitionDir) {
        RecoveryScan.RecoveredState checked = RecoveryScan.recoverState(partitionDir, CHECK);
        refuseDamage(checked, Map.of());
        return checked;
    }

    /** The epoch of the leader that wrote {@code offset}: the newest entry starting at or below it (0 before any). */
    static int epochAt(List<EpochEntry> epochs, long offset) {
        int epoch = 0;
        for (EpochEntry e : epochs) {
            if (e.startOffset() <= offset) {
                epoch = Math.max(e.epoch(), 0);
            }
        }
        return epoch;
    }

    /** How a partition's segments got there: "copies", "hard links", or both (closed segments linked, the last copied). */
    static String transfer(int linked, int copied) {
        if (linked == 0) {
            return "copies";
        }
        return copied == 0 ? "hard links" : "hard links and copies";
    }

    /** Hard-links {@code dest} to {@code source}; false (nothing left at {@code dest}) where the file system cannot. */
    static boolean link(Path source, Path dest) throws IOException {
        try {
            Files.createLink(dest, source);
            return true;
        } catch (UnsupportedOperationException | FileSystemException e) {
            Files.deleteIfExists(dest);
            return false; // another file system, or none that links: copied instead
        }
    }

    private static void refuseDamage(RecoveryScan.RecoveredState state, Map<String, Path> apacheNameOf) {
        var report = state.outcome().report();
        if (!report.damage().isEmpty() || report.refused()) {
            throw new StorageException(
                    StorageException.Kind.DAMAGED,
                    apacheNames(String.join("; ", report.damage()), apacheNameOf)
                            + " (Apache's file is untouched; repair it with Apache's tools or `kaas recover --force` on a copy)");
        }
        if (report.bytesTruncated() > 0 || report.segmentsRemoved() > 0) {
            throw new StorageException(
                    StorageException.Kind.DAMAGED,
                    apacheNames(String.join("; ", report.actions()), apacheNameOf)
                            + ": the log does not end cleanly (was the broker stopped cleanly?)");
        }
    }

    private static String apacheNames(String message, Map<String, Path> apacheNameOf) {
        String out = message;
        for (Map.Entry<String, Path> e : apacheNameOf.entrySet()) {
            out = out.replace(e.getKey(), e.getValue().toString());
        }
        return out;
    }

    /** Appends one end-transaction marker batch (Apache's own builder) at the end of the copied last segment. */
    private static void appendMarker(
            Path active, long offset, int leaderEpoch, long producerId, short producerEpoch, ControlRecordType type) {
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(
                offset,
                System.currentTimeMillis(),
                leaderEpoch,
                producerId,
                producerEpoch,
                new EndTransactionMarker(type, 0));
        try (FileChannel ch = FileChannel.open(active, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer buf = marker.buffer();
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, active + ": cannot append a marker: " + e.getMessage(), e);
        }
    }
}
