package io.kaas.broker.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** What a ShareFetch response carries of what it read: the batches that hold acquired records, no others. */
class ShareFetchesTest {
    private static MemoryRecords log(long... baseOffsets) {
        List<ByteBuffer> parts = new ArrayList<>();
        int size = 0;
        for (long base : baseOffsets) {
            ByteBuffer b = MemoryRecords.withRecords(
                            base,
                            Compression.NONE,
                            new SimpleRecord(("a" + base).getBytes()),
                            new SimpleRecord(("b" + base).getBytes()))
                    .buffer();
            parts.add(b);
            size += b.remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(size);
        parts.forEach(all::put);
        return MemoryRecords.readableRecords(all.flip());
    }

    private static List<Long> bases(MemoryRecords records) {
        List<Long> out = new ArrayList<>();
        for (RecordBatch b : records.batches()) {
            out.add(b.baseOffset());
        }
        return out;
    }

    @Test
    void onlyTheBatchesWithAcquiredRecordsAreSent() {
        MemoryRecords read = log(10, 12, 14, 16);
        assertThat(bases(ShareFetches.covering(read, List.of(new SharePartition.Acquired(13, 14, 1)))))
                .containsExactly(12L, 14L);
        assertThat(bases(ShareFetches.covering(read, List.of(new SharePartition.Acquired(10, 17, 1)))))
                .containsExactly(10L, 12L, 14L, 16L);
        assertThat(bases(ShareFetches.covering(
                        read, List.of(new SharePartition.Acquired(11, 11, 2), new SharePartition.Acquired(14, 15, 1)))))
                .containsExactly(10L, 12L, 14L);
    }
}
