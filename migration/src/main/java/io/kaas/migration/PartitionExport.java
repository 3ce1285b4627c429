package io.kaas.migration;

import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.recovery.RecoveryScan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;

/**
 * One kaas partition ({@code <data>/<topic>/<n>/}) as Apache's {@code <logdir>/<topic>-<n>/}: each segment's
 * {@code .log} under Apache's name ({@code <base:020d>.log}), the batch bytes verbatim (closed segments hard-linked
 * where the file system allows, else copied; the last segment always copied, because Apache appends to it and
 * kaas's file must stay as it was), {@code partition.metadata} with the topic id, and {@code leader-epoch-checkpoint}
 * from the batches' partition leader epochs (the first offset of each higher epoch, as Apache's LeaderEpochFileCache
 * assigns them). The offset, time and transaction indexes and the producer snapshots are left to Apache: a log dir
 * without a clean-shutdown marker is recovered segment by segment on its first start (LogSegment.recover), which
 * builds them from the log with Apache's own classes.
 */
final class PartitionExport {
    /** What was (or, in a dry run, would be) written. */
    record Result(
            String topic,
            int partition,
            int segments,
            long bytes,
            String transfer,
            long logStartOffset,
            long logEndOffset,
            int leaderEpoch,
            List<EpochEntry> epochs) {}

    /** The checked source: its segments, offsets, and the leader epochs its batches carry. */
    record Source(
            String topic,
            int partition,
            Path dir,
            List<SegmentFile> segments,
            RecoveryScan.Outcome outcome,
            List<EpochEntry> epochs) {
        /** The epoch Apache's leader is to take: the newest the batches, the manifest or a segment name carries. */
        int leaderEpoch() {
            int fromBatches =
                    epochs.isEmpty() ? 0 : epochs.get(epochs.size() - 1).epoch();
            return Math.max(fromBatches, Math.max(outcome.epoch(), PartitionSegments.newestEpoch(segments)));
        }
    }

    private PartitionExport() {}

    /**
     * Reads every byte of the kaas partition in place (core-storage's recovery scan, dry run): damage or a torn tail
     * refuses, and so does a transaction still open in it (Apache would find it open with no coordinator to end it).
     */
    static Source check(String topic, int partition, Path dir) {
        RecoveryScan.RecoveredState checked = PartitionImport.check(dir);
        if (!checked.txns().snapshot().open().isEmpty()) {
            throw new OpenTransactionsException(dir + ": transaction(s) open, producer(s) "
                    + checked.txns().snapshot().open().stream()
                            .map(o -> Long.toString(o.producerId()))
                            .toList()
                    + "; let them commit or abort (or the transaction timeout abort them) on kaas, stop it, and"
                    + " export again; nothing was written");
        }
        List<SegmentFile> segments = PartitionSegments.list(dir);
        return new Source(topic, partition, dir, segments, checked.outcome(), epochs(segments));
    }

    static long bytes(Source s) {
        long n = 0;
        for (SegmentFile f : s.segments()) {
            n += size(f.log());
        }
        return n;
    }

    /** The first offset of each higher partition leader epoch the batches carry (batch headers only). */
    private static List<EpochEntry> epochs(List<SegmentFile> segments) {
        List<EpochEntry> out = new ArrayList<>();
        for (SegmentFile f : segments) {
            try (FileRecords records = FileRecords.open(f.log().toFile(), false)) {
                for (FileChannelRecordBatch batch : records.batches()) {
                    int epoch = batch.partitionLeaderEpoch();
                    if (epoch >= 0
                            && (out.isEmpty() || epoch > out.get(out.size() - 1).epoch())) {
                        out.add(new EpochEntry(epoch, batch.baseOffset()));
                    }
                }
            } catch (IOException e) {
                throw new StorageException(StorageException.Kind.IO, f.log() + ": cannot read: " + e.getMessage(), e);
            }
        }
        return out;
    }

    static Result dryRun(Source s) {
        return new Result(
                s.topic(),
                s.partition(),
                s.segments().size(),
                bytes(s),
                "none (dry run)",
                s.outcome().logStartOffset(),
                s.outcome().logEndOffset(),
                s.leaderEpoch(),
                s.epochs());
    }

    static Result run(Source s, Path logDir, UUID topicId, boolean copyAll) {
        Path target = logDir.resolve(ApacheNames.partitionDir(s.topic(), s.partition()));
        int linked = 0;
        int copied = 0;
        try {
            AtomicFile.createDirectories(target);
            List<SegmentFile> segments = s.segments();
            for (int i = 0; i < segments.size(); i++) {
                Path source = segments.get(i).log();
                Path dest =
                        target.resolve(ApacheNames.segmentFile(segments.get(i).baseOffset()));
                boolean last = i == segments.size() - 1;
                if (!last && !copyAll && PartitionImport.link(source, dest)) {
                    linked++;
                } else {
                    Files.copy(source, dest, StandardCopyOption.COPY_ATTRIBUTES);
                    copied++;
                }
            }
            LogDirFailureChannel failures = new LogDirFailureChannel(1);
            PartitionMetadataFile metadata =
                    new PartitionMetadataFile(PartitionMetadataFile.newFile(target.toFile()), failures);
            metadata.record(new Uuid(topicId.getMostSignificantBits(), topicId.getLeastSignificantBits()));
            metadata.maybeFlush();
            new LeaderEpochCheckpointFile(LeaderEpochCheckpointFile.newFile(target.toFile()), failures)
                    .write(s.epochs());
            AtomicFile.fsyncDirectory(target);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, target + ": cannot write: " + e.getMessage(), e);
        }
        String transfer = PartitionImport.transfer(linked, copied);
        return new Result(
                s.topic(),
                s.partition(),
                s.segments().size(),
                bytes(s),
                transfer,
                s.outcome().logStartOffset(),
                s.outcome().logEndOffset(),
                s.leaderEpoch(),
                s.epochs());
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + e.getMessage(), e);
        }
    }
}
