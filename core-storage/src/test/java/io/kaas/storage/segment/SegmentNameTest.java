package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SegmentNameTest {
    @Test
    void fileNamesAreTheFormatPatternsTheFormatDocumentNames() {
        Random random = new Random(42);
        long[] offsets = {0, 1, 9, 10, 123_456_789, Long.MAX_VALUE, -1, Long.MIN_VALUE, random.nextLong()};
        int[] epochs = {0, 1, 15, 16, 0x7fffffff, -1, Integer.MIN_VALUE, random.nextInt()};
        for (long offset : offsets) {
            assertThat(new SegmentName(-1, offset, true).logFileName())
                    .isEqualTo(String.format("%020d", offset) + ".log");
            for (int epoch : epochs) {
                SegmentName name = SegmentName.of(epoch, offset);
                assertThat(name.logFileName()).isEqualTo(String.format("%08x-%020d.log", epoch, offset));
                assertThat(name.indexFileName()).isEqualTo(String.format("%08x-%020d.index", epoch, offset));
            }
        }
        for (int i = 0; i < 1000; i++) {
            SegmentName name = SegmentName.of(random.nextInt(), random.nextLong() >>> 1);
            assertThat(SegmentName.parse(name.logFileName())).contains(name);
        }
    }
}
