package io.kaas.migration;

import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;

/**
 * The record batches of one Apache partition (or KRaft snapshot), in offset order, each CRC-checked: what the
 * state readers ({@link ClusterMetadata}, {@link CommittedGroupOffsets}, {@link TransactionStates}) decode. A
 * batch that does not frame or whose CRC fails is refused with its file and byte.
 */
final class ApacheBatches {
    interface BatchVisitor {
        void visit(Path file, FileChannelRecordBatch batch);
    }

    private ApacheBatches() {}

    /** The {@code .log} segments of {@code partitionDir}, by base offset. */
    static List<Path> segments(Path partitionDir) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(partitionDir, "*.log")) {
            for (Path f : ds) {
                if (ApacheNames.isSegmentFile(f.getFileName().toString())) {
                    out.add(f);
                }
            }
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, partitionDir + ": cannot list: " + e.getMessage(), e);
        }
        out.sort(null); // 20-digit names sort as their offsets
        return out;
    }

    static void forEach(Path partitionDir, BatchVisitor visitor) {
        for (Path segment : segments(partitionDir)) {
            forEachInFile(segment, visitor);
        }
    }

    private static FileRecords open(Path file) {
        try {
            return FileRecords.open(file.toFile(), false);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** Every batch of one file in a batch log ({@code .log} segment or {@code .checkpoint} snapshot). */
    static void forEachInFile(Path file, BatchVisitor visitor) {
        try (FileRecords records = open(file)) {
            int position = 0;
            try {
                for (FileChannelRecordBatch batch : records.batches()) {
                    position = batch.position();
                    batch.ensureValid();
                    visitor.visit(file, batch);
                }
            } catch (KafkaException e) {
                throw new StorageException(
                        StorageException.Kind.DAMAGED,
                        file + ":" + position + ": damaged batch (" + e.getMessage() + ")",
                        e);
            }
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot close: " + e.getMessage(), e);
        }
    }
}
