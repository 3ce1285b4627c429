package io.kaas.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/** Real v2 batches built by kafka-clients, as a producer would send them. */
public final class TestBatches {
    private TestBatches() {}

    public static ByteBuffer batch(int records, long timestamp) {
        return batch(
                records,
                timestamp,
                Compression.NONE,
                RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH,
                RecordBatch.NO_SEQUENCE);
    }

    public static ByteBuffer idempotent(long producerId, short epoch, int baseSequence, int records) {
        return batch(records, 1_000L, Compression.NONE, producerId, epoch, baseSequence);
    }

    public static ByteBuffer batch(
            int records, long timestamp, Compression compression, long producerId, short epoch, int baseSequence) {
        ByteBuffer buf = ByteBuffer.allocate(1024 + records * 64);
        MemoryRecordsBuilder b = MemoryRecords.builder(
                buf,
                RecordBatch.MAGIC_VALUE_V2,
                compression,
                TimestampType.CREATE_TIME,
                0L,
                timestamp,
                producerId,
                epoch,
                baseSequence,
                false,
                RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (int i = 0; i < records; i++) {
            b.append(
                    timestamp + i,
                    ("k" + i).getBytes(StandardCharsets.UTF_8),
                    ("value-" + i).getBytes(StandardCharsets.UTF_8));
        }
        MemoryRecords mr = b.build();
        ByteBuffer out = ByteBuffer.allocate(mr.sizeInBytes());
        out.put(mr.buffer().duplicate());
        return out.flip();
    }

    /** A transactional producer's batch (KIP-98): the transactional attribute set, as a producer in a transaction sends it. */
    public static ByteBuffer transactional(long producerId, short epoch, int baseSequence, int records) {
        ByteBuffer buf = ByteBuffer.allocate(1024 + records * 64);
        MemoryRecordsBuilder b = MemoryRecords.builder(
                buf,
                RecordBatch.MAGIC_VALUE_V2,
                Compression.NONE,
                TimestampType.CREATE_TIME,
                0L,
                1_000L,
                producerId,
                epoch,
                baseSequence,
                true,
                RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (int i = 0; i < records; i++) {
            b.append(1_000L + i, null, ("txn-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return copy(b.build());
    }

    /** A COMMIT or ABORT control batch, as the transaction coordinator writes it. */
    public static ByteBuffer marker(long producerId, short epoch, boolean commit) {
        return marker(producerId, epoch, commit, 0);
    }

    /** {@link #marker} from a coordinator in {@code coordinatorEpoch}. */
    public static ByteBuffer marker(long producerId, short epoch, boolean commit, int coordinatorEpoch) {
        return copy(MemoryRecords.withEndTransactionMarker(
                1_000L,
                producerId,
                epoch,
                new EndTransactionMarker(
                        commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, coordinatorEpoch)));
    }

    private static ByteBuffer copy(MemoryRecords mr) {
        ByteBuffer out = ByteBuffer.allocate(mr.sizeInBytes());
        out.put(mr.buffer().duplicate());
        return out.flip();
    }

    /** A batch of one value of {@code size} bytes. */
    public static ByteBuffer sized(int size) {
        ByteBuffer buf = ByteBuffer.allocate(size + 1024);
        MemoryRecordsBuilder b =
                MemoryRecords.builder(buf, RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0L);
        b.append(1_000L, null, new byte[size]);
        MemoryRecords mr = b.build();
        ByteBuffer out = ByteBuffer.allocate(mr.sizeInBytes());
        out.put(mr.buffer().duplicate());
        return out.flip();
    }
}
