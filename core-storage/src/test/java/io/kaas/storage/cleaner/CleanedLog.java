package io.kaas.storage.cleaner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/** A partition's log as kafka-clients reads it back: every batch CRC-checked, every record decoded. */
public final class CleanedLog {
    /** One record read back, with its batch's identity. */
    public record Read(
            long offset,
            String key,
            String value,
            long timestamp,
            long producerId,
            short epoch,
            int baseSequence,
            long batchBase,
            long batchLast,
            byte codecId,
            boolean control,
            boolean transactional) {}

    public final List<Read> records = new ArrayList<>();
    public final List<MutableRecordBatch> batches = new ArrayList<>();

    /** Reads every {@code .log} of {@code dir} in name order (kaas names sort by base offset). */
    public static CleanedLog read(Path dir) {
        CleanedLog out = new CleanedLog();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path log : files.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList()) {
                MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(Files.readAllBytes(log)));
                int bytes = 0;
                for (MutableRecordBatch b : records.batches()) {
                    b.ensureValid();
                    bytes += b.sizeInBytes();
                    out.batches.add(b);
                    for (Record r : b) {
                        out.records.add(new Read(
                                r.offset(),
                                str(r.key()),
                                str(r.value()),
                                r.timestamp(),
                                b.producerId(),
                                b.producerEpoch(),
                                b.baseSequence(),
                                b.baseOffset(),
                                b.lastOffset(),
                                (byte) b.compressionType().id,
                                b.isControlBatch(),
                                b.isTransactional()));
                    }
                }
                if (bytes != Files.size(log)) {
                    throw new AssertionError(
                            log + ": " + (Files.size(log) - bytes) + " bytes after the last whole batch");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static String str(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }
}
