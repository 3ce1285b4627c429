package io.kaas.storage.durability;

import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Real v2 batches built by kafka-clients with seeded random payloads, and the comparison the
 * durability checks use: the engine rewrites baseOffset and partitionLeaderEpoch in place, so a stored
 * batch equals the sent one everywhere else.
 */
final class RandomBatches {
    private RandomBatches() {}

    /** A batch of {@code records} records of {@code valueBytes} random bytes each; producerId -1 for a plain one. */
    static ByteBuffer build(
            Random random, int records, int valueBytes, long producerId, short epoch, int baseSequence) {
        ByteBuffer buf = ByteBuffer.allocate(1024 + records * (valueBytes + 64));
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
                false,
                RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            b.append(1_000L + i, null, value);
        }
        MemoryRecords mr = b.build();
        ByteBuffer out = ByteBuffer.allocate(mr.sizeInBytes());
        out.put(mr.buffer().duplicate());
        return out.flip();
    }

    /** An independent copy (the engine owns and rewrites the buffer it is given). */
    static ByteBuffer copy(ByteBuffer batch) {
        ByteBuffer c = ByteBuffer.allocate(batch.remaining());
        c.put(batch.duplicate());
        return c.flip();
    }

    /**
     * Whether {@code stored} is {@code sent} with only the fields the engine assigns changed: bytes
     * 0..8 (baseOffset) and 12..16 (partitionLeaderEpoch) are skipped, everything else must match.
     */
    static boolean sameExceptAssignedFields(ByteBuffer sent, ByteBuffer stored) {
        if (sent.remaining() != stored.remaining()) {
            return false;
        }
        int s = sent.position();
        int t = stored.position();
        for (int i = 0; i < sent.remaining(); i++) {
            boolean assigned = i < RecordBatchHeader.LENGTH_OFFSET
                    || (i >= RecordBatchHeader.PARTITION_LEADER_EPOCH_OFFSET && i < RecordBatchHeader.MAGIC_OFFSET);
            if (!assigned && sent.get(s + i) != stored.get(t + i)) {
                return false;
            }
        }
        return true;
    }
}
