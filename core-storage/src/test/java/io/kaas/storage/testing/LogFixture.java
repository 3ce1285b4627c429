package io.kaas.storage.testing;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.segment.IndexEntry;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.segment.SparseIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Builds real log files for tests: batches from kafka-clients' own builders (every codec, idempotent,
 * transactional, COMMIT/ABORT markers), written under kaas or Apache file names, with indexes laid
 * by the broker's rule ({@link IndexPolicy}) and a manifest. Deterministic: fixed timestamps.
 */
public final class LogFixture {
    public static final long TIMESTAMP = 1_700_000_000_000L;
    public static final List<Compression> CODECS = List.of(
            Compression.NONE,
            Compression.gzip().build(),
            Compression.snappy().build(),
            Compression.lz4().build(),
            Compression.zstd().build());
    public static final long PRODUCER_ID = 4242L;

    private LogFixture() {}

    /** A plain batch of {@code count} records with keys "k<offset>", values "v<offset>" and a header "h". */
    public static ByteBuffer batch(long baseOffset, Compression codec, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            long o = baseOffset + i;
            records[i] = new SimpleRecord(
                    TIMESTAMP + i, bytes("k" + o), bytes("v" + o), new Header[] {new RecordHeader("h", bytes("x"))});
        }
        return MemoryRecords.withRecords(baseOffset, codec, records).buffer();
    }

    public static ByteBuffer transactional(long baseOffset, Compression codec, int count, int baseSequence) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(TIMESTAMP + i, bytes("tk" + i), bytes("tv" + i));
        }
        return MemoryRecords.withTransactionalRecords(
                        baseOffset, codec, PRODUCER_ID, (short) 3, baseSequence, 0, records)
                .buffer();
    }

    public static ByteBuffer idempotent(long baseOffset, Compression codec, int count, int baseSequence) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(TIMESTAMP + i, null, bytes("iv" + i));
        }
        return MemoryRecords.withIdempotentRecords(
                        baseOffset, codec, PRODUCER_ID + 1, (short) 1, baseSequence, 0, records)
                .buffer();
    }

    public static ByteBuffer marker(long offset, ControlRecordType type) {
        return MemoryRecords.withEndTransactionMarker(
                        offset, TIMESTAMP, 0, PRODUCER_ID, (short) 3, new EndTransactionMarker(type, 7))
                .buffer();
    }

    /**
     * Every kind of batch, contiguous from {@code baseOffset}: each codec, idempotent, a committed
     * and an aborted transaction. Returns the batches; {@link #nextOffset} gives the offset after.
     */
    public static List<ByteBuffer> mixed(long baseOffset) {
        List<ByteBuffer> out = new ArrayList<>();
        long o = baseOffset;
        for (Compression c : CODECS) {
            out.add(batch(o, c, 3));
            o += 3;
        }
        out.add(idempotent(o, Compression.NONE, 2, 0));
        o += 2;
        out.add(transactional(o, Compression.gzip().build(), 2, 0));
        o += 2;
        out.add(marker(o, ControlRecordType.COMMIT));
        o += 1;
        out.add(transactional(o, Compression.NONE, 2, 2));
        o += 2;
        out.add(marker(o, ControlRecordType.ABORT));
        return out;
    }

    /** Plain uncompressed batches of {@code perBatch} records each, {@code batches} of them. */
    public static List<ByteBuffer> plain(long baseOffset, int batches, int perBatch) {
        List<ByteBuffer> out = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            out.add(batch(baseOffset + (long) i * perBatch, Compression.NONE, perBatch));
        }
        return out;
    }

    public static long nextOffset(List<ByteBuffer> batches) {
        ByteBuffer last = batches.get(batches.size() - 1);
        return RecordBatchHeader.peek(last, last.position()).nextOffset();
    }

    /** Writes the batches as {@code dir/name.log} and the index the broker would write beside it. */
    public static Path writeSegment(Path dir, SegmentName name, List<ByteBuffer> batches, int indexInterval) {
        try {
            Files.createDirectories(dir);
            Path log = dir.resolve(name.logFileName());
            Files.write(log, concat(batches));
            writeIndex(dir.resolve(name.indexFileName()), name.baseOffset(), batches, indexInterval);
            return log;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The broker's rule, as a test oracle: an entry (last offset, position) once more than the interval was appended. */
    public static List<IndexEntry> expectedIndex(List<ByteBuffer> batches, int indexInterval) {
        IndexPolicy policy = new IndexPolicy(indexInterval);
        List<IndexEntry> entries = new ArrayList<>();
        long pos = 0;
        for (ByteBuffer b : batches) {
            RecordBatchHeader h = RecordBatchHeader.peek(b, b.position());
            if (policy.due(pos, entries.isEmpty() ? null : entries.get(entries.size() - 1))) {
                entries.add(new IndexEntry(h.lastOffset(), (int) pos));
            }
            pos += h.sizeInBytes();
        }
        return entries;
    }

    static void writeIndex(Path index, long baseOffset, List<ByteBuffer> batches, int interval) throws IOException {
        try (SparseIndex idx = SparseIndex.create(index, baseOffset)) {
            for (IndexEntry e : expectedIndex(batches, interval)) {
                idx.append(e.offset(), e.position());
            }
        }
    }

    public static byte[] concat(List<ByteBuffer> batches) {
        int n = batches.stream().mapToInt(ByteBuffer::remaining).sum();
        ByteBuffer all = ByteBuffer.allocate(n);
        batches.forEach(b -> all.put(b.duplicate()));
        return all.array();
    }

    public static void writeManifest(Path partitionDir, int epoch, long highWatermark, long logStart) {
        StateJson.write(partitionDir.resolve(Manifest.FILE_NAME), new Manifest(epoch, highWatermark, logStart));
    }

    /**
     * A healthy kaas partition {@code data/topic/partition}: segments of {@code perSegment} batches of
     * 5 records, epoch 1, index interval 256 (so indexes have entries), a matching manifest.
     */
    public static Path partition(Path dataDir, String topic, int partition, int segments, int perSegment) {
        Path dir = dataDir.resolve(topic).resolve(Integer.toString(partition));
        long offset = 0;
        for (int s = 0; s < segments; s++) {
            List<ByteBuffer> batches = plain(offset, perSegment, 5);
            writeSegment(dir, SegmentName.of(1, offset), batches, 256);
            offset = nextOffset(batches);
        }
        writeManifest(dir, 1, offset, 0);
        return dir;
    }

    /** Appends raw bytes to a file (torn tails, zero fill, garbage). */
    public static void append(Path file, byte[] extra) {
        try {
            Files.write(file, extra, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Flips every bit of one byte of a file. */
    public static void flipByte(Path file, long position) {
        try {
            byte[] all = Files.readAllBytes(file);
            all[(int) position] ^= (byte) 0xFF;
            Files.write(file, all);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static int sizeOf(ByteBuffer batch) {
        return batch.remaining();
    }

    /** Every file under {@code root} (relative path -> SHA-256), to assert that a command changed no byte. */
    public static java.util.SortedMap<String, String> snapshot(Path root) {
        java.util.SortedMap<String, String> out = new java.util.TreeMap<>();
        try (var files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String key = root.relativize(f).toString();
                if (Files.isDirectory(f)) {
                    out.put(key + "/", "dir");
                } else {
                    out.put(
                            key,
                            java.util.HexFormat.of()
                                    .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                                            .digest(Files.readAllBytes(f))));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
