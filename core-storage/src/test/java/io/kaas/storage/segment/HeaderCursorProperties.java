package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.segment.HeaderCursor.Framing;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random batch sequences with one random damage: the header walk stops where and how a model of the
 * damage says; random byte damage never makes the cursor or the scanner throw or loop.
 */
class HeaderCursorProperties {
    enum Kind {
        NONE,
        CUT,
        ZEROS,
        MAGIC,
        SHORT_LENGTH,
        LONG_LENGTH
    }

    record Damage(Kind kind, int batch, int amount) {}

    /** Where the walk stops, how, and the batches it passes on the way. */
    record Walk(List<Long> batches, Framing stop, long stopAt) {}

    @Provide
    Arbitrary<Damage> damages() {
        return Combinators.combine(
                        Arbitraries.of(Kind.class),
                        Arbitraries.integers().between(0, 20),
                        Arbitraries.integers().between(1, 5000))
                .as(Damage::new);
    }

    @Property(tries = 300)
    void theWalkStopsWhereTheDamageModelSays(
            @ForAll @Size(min = 1, max = 6) List<@IntRange(min = 1, max = 5) Integer> records,
            @ForAll("damages") Damage damage)
            throws Exception {
        SegmentBytes log =
                SegmentBytes.of(0, records.stream().mapToInt(Integer::intValue).toArray());
        int k = damage.batch() % records.size();
        byte[] bytes = log.bytes.clone();
        List<Long> before = log.starts.subList(0, k);
        Walk expected;
        switch (damage.kind()) {
            case NONE -> expected = new Walk(log.starts, Framing.END, bytes.length);
            case CUT -> {
                int cut = damage.amount() % bytes.length;
                bytes = Arrays.copyOf(bytes, cut);
                expected = cutModel(log, cut);
            }
            case ZEROS -> {
                int n = damage.amount();
                bytes = Arrays.copyOf(bytes, bytes.length + n);
                expected = new Walk(
                        log.starts,
                        n < RecordBatchHeader.HEADER_SIZE ? Framing.SHORT_HEADER : Framing.BAD_LENGTH,
                        log.bytes.length);
            }
            case MAGIC -> {
                bytes[(int) log.start(k) + RecordBatchHeader.MAGIC_OFFSET] = (byte) (3 + damage.amount() % 200);
                expected = new Walk(before, Framing.BAD_MAGIC, log.start(k));
            }
            case SHORT_LENGTH -> {
                setLength(
                        bytes,
                        log.start(k),
                        RecordBatchHeader.HEADER_SIZE - RecordBatchHeader.LOG_OVERHEAD - damage.amount());
                expected = new Walk(before, Framing.BAD_LENGTH, log.start(k));
            }
            default -> {
                setLength(
                        bytes,
                        log.start(k),
                        (int) (bytes.length - log.start(k)) + damage.amount() - RecordBatchHeader.LOG_OVERHEAD);
                expected = new Walk(before, Framing.PAST_END, log.start(k));
            }
        }
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix());
                FileChannel ch = log.withBytes(bytes).open(fs.getPath("/a.log"))) {
            HeaderCursor c = new HeaderCursor(ch, 0, ch.size());
            List<Long> seen = new ArrayList<>();
            Framing f;
            while ((f = c.next()) == Framing.BATCH) {
                seen.add(c.position());
            }
            assertThat(new Walk(seen, f, c.position())).isEqualTo(expected);
            boolean zeros = f != Framing.END;
            for (long i = c.position(); i < bytes.length; i++) {
                zeros &= bytes[(int) i] == 0;
            }
            assertThat(c.tailIsZeros()).isEqualTo(zeros);
            if (damage.kind() == Kind.ZEROS) {
                assertThat(zeros).isTrue();
            }
            if (f == Framing.BAD_MAGIC) {
                c.stepOver();
                List<Long> rest = new ArrayList<>();
                while (c.next() == Framing.BATCH) {
                    rest.add(c.position());
                }
                assertThat(rest).isEqualTo(log.starts.subList(k + 1, log.starts.size()));
                assertThat(c.framing()).isEqualTo(Framing.END);
            }
        }
    }

    @Property(tries = 300)
    void randomDamageNeverThrowsNorLoops(
            @ForAll @Size(min = 1, max = 6) List<@IntRange(min = 1, max = 5) Integer> records,
            @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = 100_000) Integer> positions,
            @ForAll @Size(min = 8, max = 8) List<@IntRange(min = 0, max = 255) Integer> values,
            @ForAll @IntRange(min = 0, max = 100_000) int start)
            throws Exception {
        SegmentBytes log =
                SegmentBytes.of(0, records.stream().mapToInt(Integer::intValue).toArray());
        byte[] bytes = log.bytes.clone();
        for (int i = 0; i < positions.size(); i++) {
            bytes[positions.get(i) % bytes.length] = (byte) (int) values.get(i);
        }
        long from = start % (bytes.length + 1);
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix());
                FileChannel ch = log.withBytes(bytes).open(fs.getPath("/a.log"))) {
            HeaderCursor c = new HeaderCursor(ch, from, ch.size());
            long last = -1;
            int steps = 0;
            for (Framing f = c.next(); f == Framing.BATCH || f == Framing.BAD_MAGIC; f = c.next()) {
                assertThat(c.position()).isGreaterThan(last);
                assertThat(c.position() + c.sizeInBytes()).isLessThanOrEqualTo(ch.size());
                last = c.position();
                if (f == Framing.BAD_MAGIC) {
                    c.stepOver();
                }
                assertThat(++steps).isLessThanOrEqualTo(bytes.length / RecordBatchHeader.HEADER_SIZE);
            }
            BatchScanner s = new BatchScanner(ch, fs.getPath("/a.log"), from, ch.size(), Long.MIN_VALUE);
            long lastScanned = -1;
            for (int walks = 0; walks <= bytes.length / RecordBatchHeader.HEADER_SIZE; walks++) {
                for (ScannedBatch b = s.next(); b != null; b = s.next()) {
                    assertThat(b.position()).isGreaterThan(lastScanned);
                    lastScanned = b.position();
                }
                s.tailIsZeros();
                s.validDataFollows();
                ScannedBatch bad = s.stepOver();
                if (bad == null) {
                    return;
                }
                assertThat(bad.position()).isGreaterThan(lastScanned);
                lastScanned = bad.position();
            }
            throw new AssertionError("the scanner stepped over more batches than the file can hold");
        }
    }

    /** What a walk of the first {@code cut} bytes finds. */
    private static Walk cutModel(SegmentBytes log, int cut) {
        List<Long> whole = new ArrayList<>();
        for (int i = 0; i < log.starts.size(); i++) {
            if (log.end(i) > cut) {
                long at = log.start(i);
                Framing stop = at == cut
                        ? Framing.END
                        : cut - at < RecordBatchHeader.HEADER_SIZE ? Framing.SHORT_HEADER : Framing.PAST_END;
                return new Walk(whole, stop, at);
            }
            whole.add(log.start(i));
        }
        return new Walk(whole, Framing.END, cut);
    }

    private static void setLength(byte[] bytes, long batchStart, int length) {
        ByteBuffer.wrap(bytes).putInt((int) batchStart + RecordBatchHeader.LENGTH_OFFSET, length);
    }
}
