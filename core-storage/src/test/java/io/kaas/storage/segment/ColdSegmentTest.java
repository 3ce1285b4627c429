package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.io.FileHandleCache;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A closed segment holds no file and no index entries until used, and gives both up when it goes cold. */
class ColdSegmentTest {
    /** 40 batches of 1 to 4 records from offset 100: 100 records, an index entry every batch or so. */
    private final SegmentBytes log = SegmentBytes.of(
            100, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2,
            3, 4, 1, 2, 3, 4);

    @TempDir
    Path dir;

    @Test
    void aClosedSegmentReadsItsIndexOnFirstUseAndDropsItWhenEvicted() throws Exception {
        SegmentName name = SegmentName.of(0, 100);
        Files.write(dir.resolve(name.logFileName()), log.bytes);
        IndexPolicy policy = new IndexPolicy(64);
        // An entry at every fourth batch (its first offset: readers accept any offset inside the batch).
        java.util.List<IndexEntry> entries = new java.util.ArrayList<>();
        long offset = 100;
        for (int i = 0; i < 40; i++) {
            if (i % 4 == 3) {
                entries.add(new IndexEntry(offset, (int) log.start(i)));
            }
            offset += 1 + i % 4;
        }
        IndexFileFormat.writeAtomically(dir.resolve(name.indexFileName()), 100, entries);

        FileHandleCache cache = new FileHandleCache(16);
        Segment closed = Segment.open(dir, name, policy, true, cache);
        assertThat(closed.logIsOpen())
                .as("opening a closed segment opens nothing")
                .isFalse();
        assertThat(closed.index().isLoaded()).isFalse();
        assertThat(cache.openChannels()).isZero();

        long expected = closed.positionOf(150, closed.size());
        assertThat(expected).isPositive();
        assertThat(closed.index().isLoaded()).isTrue();
        assertThat(closed.logIsOpen()).isTrue();
        int loaded = closed.index().entryCount();
        assertThat(loaded).isEqualTo(10);

        // Twenty other files used since: the closed segment is the least recently used and goes.
        for (int i = 0; i < 20; i++) {
            Path p = dir.resolve("other-" + i);
            Files.write(p, new byte[] {1});
            cache.file(p, StandardOpenOption.READ).acquire().close();
        }
        assertThat(closed.logIsOpen()).isFalse();
        assertThat(closed.index().isLoaded())
                .as("a cold segment's index leaves the heap")
                .isFalse();

        assertThat(closed.positionOf(150, closed.size())).isEqualTo(expected);
        assertThat(closed.index().entryCount()).isEqualTo(loaded);
        closed.close();
        assertThat(closed.logIsOpen()).isFalse();
    }
}
