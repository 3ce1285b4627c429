package io.kaas.storage.cleaner;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A random compacted-topic log and its model, for the cleaner's tests: plain batches of keyed values and
 * tombstones in every codec, idempotent batches, transactions (committed and aborted, interleaved with
 * other writes) and their markers, cut into segments; the last segment is the active one. The model is
 * what a reader must still see after cleaning: each key's latest committed record.
 */
public final class CleanerScenario {
    public static final long TIMESTAMP = 1_700_000_000_000L;
    private static final long IDEMPOTENT_PID = 300;

    /** One record as written: offset, key, value (null = tombstone), timestamp, and its batch's identity. */
    public record Written(
            long offset,
            String key,
            String value,
            long timestamp,
            long producerId,
            short epoch,
            int baseSequence,
            long batchBase,
            byte codecId,
            boolean aborted) {}

    public final List<List<ByteBuffer>> segments = new ArrayList<>();
    public final List<Long> segmentBases = new ArrayList<>();
    public final Map<Long, Written> byOffset = new LinkedHashMap<>();
    public final Map<Long, Long> lastBatchOfProducer = new HashMap<>();
    public long nextOffset;

    private final Random random;
    private final int keys;
    private List<ByteBuffer> current = new ArrayList<>();
    private int batchesInSegment;
    private int segmentLength;
    private int idempotentSeq;

    private CleanerScenario(long seed, int keys) {
        this.random = new Random(seed);
        this.keys = keys;
    }

    /** A log of about {@code steps} writes over {@code keys} keys, from {@code seed}. */
    public static CleanerScenario generate(long seed, int steps, int keys) {
        CleanerScenario s = new CleanerScenario(seed, keys);
        s.startSegment();
        for (int i = 0; i < steps; i++) {
            int kind = s.random.nextInt(10);
            if (kind < 6) {
                s.plain();
            } else if (kind < 7) {
                s.idempotent();
            } else {
                s.transaction();
            }
        }
        // the active segment: never cleaned
        s.rollNow();
        s.segmentLength = Integer.MAX_VALUE;
        s.plain();
        s.segments.add(s.current);
        return s;
    }

    /** Writes the segments into {@code dir} (kaas names, epoch 0, the broker's index rule). */
    public List<SegmentName> write(Path dir) {
        List<SegmentName> names = new ArrayList<>();
        for (int i = 0; i < segments.size(); i++) {
            SegmentName name = SegmentName.of(0, segmentBases.get(i));
            LogFixture.writeSegment(dir, name, segments.get(i), 4096);
            names.add(name);
        }
        LogFixture.writeManifest(dir, 0, nextOffset, 0);
        // The cleaner's logs are a compacted topic's: recovery and verify allow its offset gaps by that config.
        StateJson.write(
                dir.toAbsolutePath().getParent().resolve(TopicConfig.FILE_NAME),
                new TopicConfig(null, null, null, null, "compact", null, null, null));
        return names;
    }

    public long activeBase() {
        return segmentBases.get(segmentBases.size() - 1);
    }

    /** Key → the latest committed record below {@code end} (a tombstone has a null value). */
    public Map<String, Written> latestBelow(long end) {
        Map<String, Written> latest = new HashMap<>();
        for (Written w : byOffset.values()) {
            if (w.offset() < end && !w.aborted()) {
                latest.put(w.key(), w);
            }
        }
        return latest;
    }

    private void plain() {
        Compression codec = codec();
        int n = 1 + random.nextInt(5);
        SimpleRecord[] records = records(n);
        ByteBuffer b = MemoryRecords.withRecords(nextOffset, codec, records).buffer();
        note(records, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, codec, false);
        add(b, n);
    }

    private void idempotent() {
        Compression codec = codec();
        int n = 1 + random.nextInt(3);
        SimpleRecord[] records = records(n);
        ByteBuffer b = MemoryRecords.withIdempotentRecords(
                        nextOffset, codec, IDEMPOTENT_PID, (short) 0, idempotentSeq, 0, records)
                .buffer();
        lastBatchOfProducer.put(IDEMPOTENT_PID, nextOffset);
        note(records, IDEMPOTENT_PID, (short) 0, idempotentSeq, codec, false);
        idempotentSeq += n;
        add(b, n);
    }

    private void transaction() {
        long pid = 100 + random.nextInt(3);
        boolean commit = random.nextBoolean();
        int seq = 0;
        int batches = 1 + random.nextInt(3);
        for (int i = 0; i < batches; i++) {
            Compression codec = codec();
            int n = 1 + random.nextInt(3);
            SimpleRecord[] records = records(n);
            ByteBuffer b = MemoryRecords.withTransactionalRecords(nextOffset, codec, pid, (short) 1, seq, 0, records)
                    .buffer();
            lastBatchOfProducer.put(pid, nextOffset);
            note(records, pid, (short) 1, seq, codec, !commit);
            seq += n;
            add(b, n);
            if (random.nextInt(3) == 0) {
                plain(); // another producer writes in the middle of the transaction
            }
        }
        long markerOffset = nextOffset;
        ByteBuffer marker = MemoryRecords.withEndTransactionMarker(
                        markerOffset,
                        TIMESTAMP,
                        0,
                        pid,
                        (short) 1,
                        new EndTransactionMarker(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, 0))
                .buffer();
        add(marker, 1);
    }

    private SimpleRecord[] records(int n) {
        SimpleRecord[] records = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            String key = "k" + random.nextInt(keys);
            boolean tombstone = random.nextInt(6) == 0;
            String value = tombstone ? null : "v" + (nextOffset + i) + "-" + "x".repeat(random.nextInt(20));
            records[i] = new SimpleRecord(TIMESTAMP + nextOffset + i, bytes(key), bytes(value));
        }
        return records;
    }

    private void note(SimpleRecord[] records, long pid, short epoch, int seq, Compression codec, boolean aborted) {
        for (int i = 0; i < records.length; i++) {
            long o = nextOffset + i;
            byOffset.put(
                    o,
                    new Written(
                            o,
                            str(records[i].key()),
                            str(records[i].value()),
                            records[i].timestamp(),
                            pid,
                            epoch,
                            seq,
                            nextOffset,
                            (byte) codec.type().id,
                            aborted));
        }
    }

    private void add(ByteBuffer batch, int records) {
        current.add(batch);
        nextOffset += records;
        batchesInSegment++;
        if (batchesInSegment >= segmentLength) {
            rollNow();
        }
    }

    private void rollNow() {
        if (current.isEmpty()) {
            return;
        }
        segments.add(current);
        startSegment();
    }

    private void startSegment() {
        current = new ArrayList<>();
        segmentBases.add(nextOffset);
        batchesInSegment = 0;
        segmentLength = 1 + random.nextInt(6);
    }

    private Compression codec() {
        return LogFixture.CODECS.get(random.nextInt(LogFixture.CODECS.size()));
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
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
