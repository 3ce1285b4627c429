package io.kaas.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.StoredBatch;
import io.kaas.storage.format.CodecSite;
import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

class RecordTimestampSearchTest {
    private final Map<CodecSite, Long> tripped = new EnumMap<>(CodecSite.class);
    private final RecordTimestampSearch search =
            new RecordTimestampSearch((site, count) -> tripped.merge(site, count, Long::sum));

    private static StoredBatch batch(TimestampType type, Compression compression, long baseOffset, long... timestamps) {
        MemoryRecordsBuilder b = MemoryRecords.builder(
                ByteBuffer.allocate(4096), RecordBatch.CURRENT_MAGIC_VALUE, compression, type, baseOffset, 9_999L);
        for (long ts : timestamps) {
            b.append(ts, null, new byte[] {1});
        }
        ByteBuffer bytes = b.build().buffer();
        RecordBatchHeader h = RecordBatchHeader.peek(bytes, 0);
        return new StoredBatch(h, bytes, 0);
    }

    @Test
    void createTimeAnswersTheFirstRecordAtOrAfterTheTargetAndAtOrAfterLogStart() {
        StoredBatch s = batch(TimestampType.CREATE_TIME, Compression.gzip().build(), 100, 50, 30, 70, 60, 70);
        assertThat(search.firstAtLeast(s, 55, 0, Integer.MAX_VALUE))
                .contains(new RecordTimestampSearch.Found(70, 102, -1));
        assertThat(search.firstAtLeast(s, 55, 103, Integer.MAX_VALUE))
                .contains(new RecordTimestampSearch.Found(60, 103, -1));
        assertThat(search.firstAtLeast(s, 71, 0, Integer.MAX_VALUE)).isEmpty();
        assertThat(search.firstWithMaxTimestamp(s, Integer.MAX_VALUE))
                .contains(new RecordTimestampSearch.Found(70, 102, -1));
        // Four lookups, each reading the records of the one five-record batch.
        assertThat(tripped).containsExactly(Map.entry(CodecSite.LIST_OFFSETS_TIMESTAMP, 20L));
    }

    @Test
    void logAppendTimeBatchesAnswerTheBatchFromItsHeader() {
        StoredBatch s = batch(TimestampType.LOG_APPEND_TIME, Compression.NONE, 100, 50, 30, 70);
        assertThat(s.header().isLogAppendTime()).isTrue();
        assertThat(search.firstAtLeast(s, 10, 0, Integer.MAX_VALUE))
                .contains(new RecordTimestampSearch.Found(9_999, 100, -1));
        assertThat(search.firstAtLeast(s, 10, 101, Integer.MAX_VALUE))
                .contains(new RecordTimestampSearch.Found(9_999, 101, -1));
        assertThat(search.firstAtLeast(s, 10, 103, Integer.MAX_VALUE)).isEmpty();
        assertThat(search.firstWithMaxTimestamp(s, Integer.MAX_VALUE))
                .contains(new RecordTimestampSearch.Found(9_999, 100, -1));
        assertThat(tripped).as("answered from the header: nothing decoded").isEmpty();
    }
}
