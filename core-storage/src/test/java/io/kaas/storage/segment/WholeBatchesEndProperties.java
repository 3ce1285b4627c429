package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.format.RecordBatchHeader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * {@link Segment#wholeBatchesEnd} skips over batches through the in-memory index instead of reading
 * each header: whatever the batch sizes, index interval, start, byte limit, cap and segment limit, it
 * ends exactly where walking every header from the start (the rule it replaced) ends.
 */
class WholeBatchesEndProperties {
    @Property(tries = 200)
    void sameEndAsWalkingEveryHeader(
            @ForAll @Size(min = 1, max = 40) List<@IntRange(min = 1, max = 30) Integer> recordCounts,
            @ForAll @IntRange(min = 1, max = 3000) int indexInterval,
            @ForAll @IntRange(min = 0, max = 39) int startBatch,
            @ForAll @IntRange(min = 1, max = 20_000) int maxBytes,
            @ForAll @IntRange(min = 0, max = 1300) int capAbove,
            @ForAll @IntRange(min = 0, max = 39) int limitBatches)
            throws Exception {
        SegmentBytes bytes = SegmentBytes.of(
                100, recordCounts.stream().mapToInt(Integer::intValue).toArray());
        int batches = recordCounts.size();
        long pos = bytes.start(Math.min(startBatch, batches - 1));
        // A limit at a batch end at or after pos (a reader's view of the size), or the whole segment.
        long limit = Math.max(pos, bytes.end(Math.min(limitBatches, batches - 1)));
        long cap = 100 + capAbove;
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            Path dir = Files.createDirectories(fs.getPath("/p"));
            SegmentName name = SegmentName.of(0, 100);
            try (Segment s = Segment.create(dir, name, new IndexPolicy(indexInterval), 0)) {
                ByteBuffer all = ByteBuffer.wrap(bytes.bytes);
                for (int i = 0; i < batches; i++) {
                    ByteBuffer one = all.duplicate()
                            .position((int) bytes.start(i))
                            .limit((int) bytes.end(i))
                            .slice();
                    s.append(one, List.of(RecordBatchHeader.peek(one, 0)), new int[] {0});
                }
                long expected;
                try (FileChannel ch = FileChannel.open(dir.resolve(name.logFileName()), StandardOpenOption.READ)) {
                    expected = walkEveryHeader(ch, pos, limit, maxBytes, cap);
                }
                assertThat(s.wholeBatchesEnd(pos, limit, maxBytes, cap)).isEqualTo(expected);
            }
        }
    }

    /** The walk as it was before the index skip: every header from {@code pos}. */
    private static long walkEveryHeader(FileChannel ch, long pos, long limit, int maxBytes, long cap) throws Exception {
        HeaderCursor batches = new HeaderCursor(ch, pos, limit);
        long end = pos;
        while (batches.next() == HeaderCursor.Framing.BATCH) {
            long next = batches.position() + batches.sizeInBytes();
            if (batches.baseOffset() >= cap || (end > pos && next - pos > maxBytes)) {
                break;
            }
            end = next;
        }
        return end;
    }
}
