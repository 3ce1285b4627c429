package io.kaas.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** max.message.bytes is checked against each batch's size as its header states it, as Apache does. */
class LargestBatchTest {
    @Test
    void theLargestOfSeveralBatchesIsFoundAndATruncatedTailIsLeftAlone() {
        ByteBuffer small = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[10]))
                .buffer();
        ByteBuffer big = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[3000]))
                .buffer();
        ByteBuffer both = ByteBuffer.allocate(small.remaining() + big.remaining() + 5);
        both.put(small.duplicate()).put(big.duplicate()).put(new byte[5]).flip();
        assertThat(ProduceHandler.largestBatch(both)).isEqualTo(big.remaining());
        assertThat(both.position()).isZero();
        assertThat(ProduceHandler.largestBatch(ByteBuffer.allocate(0))).isZero();
    }
}
