package io.kaas.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * {@link RecordKeys} reads the same keys and offsets as kafka-clients' own decoder, for records with and
 * without keys, values and headers; and on damaged bytes it fails with IllegalArgumentException (or
 * still frames the batch exactly), never another exception.
 */
class RecordKeysProperties {
    record KeyAt(ByteBuffer key, long offset) {}

    @Property(tries = 300)
    void readsTheKeysKafkaClientsReads(@ForAll long seed, @ForAll @IntRange(min = 1, max = 40) int n) throws Exception {
        ByteBuffer batch = batch(new Random(seed), n);
        MutableRecordBatch b = MemoryRecords.readableRecords(batch.duplicate())
                .batches()
                .iterator()
                .next();
        List<KeyAt> expected = new ArrayList<>();
        for (Record r : b) {
            if (r.hasKey()) {
                expected.add(new KeyAt(r.key(), r.offset()));
            }
        }
        // the batch somewhere inside a larger buffer, as in the cleaner's read buffer
        ByteBuffer buffer = ByteBuffer.allocate(batch.remaining() + 100);
        buffer.position(37);
        buffer.put(batch.duplicate());
        buffer.clear();
        List<KeyAt> read = new ArrayList<>();
        boolean complete = new RecordKeys(buffer)
                .forEach(37, batch.remaining(), b.baseOffset(), b.countOrNull(), (key, offset) -> {
                    byte[] copy = new byte[key.remaining()];
                    key.duplicate().get(copy);
                    read.add(new KeyAt(ByteBuffer.wrap(copy), offset));
                    return true;
                });
        assertThat(complete).isTrue();
        assertThat(read).isEqualTo(expected);
        assertThat(buffer.position()).isZero();
    }

    @Property(tries = 300)
    void damagedBytesFailWithIllegalArgumentOnly(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 10) int n,
            @ForAll @IntRange(min = 1, max = 8) int flips) {
        Random random = new Random(seed);
        ByteBuffer batch = batch(random, n);
        MutableRecordBatch b = MemoryRecords.readableRecords(batch.duplicate())
                .batches()
                .iterator()
                .next();
        int size = batch.remaining();
        for (int i = 0; i < flips; i++) {
            int at = RecordKeys.RECORDS_OFFSET + random.nextInt(size - RecordKeys.RECORDS_OFFSET);
            batch.put(at, (byte) random.nextInt(256));
        }
        int count = random.nextBoolean() ? b.countOrNull() : b.countOrNull() + random.nextInt(3) - 1;
        try {
            new RecordKeys(batch).forEach(0, size, 0, Math.max(0, count), (key, offset) -> {
                assertThat(key.limit()).isLessThanOrEqualTo(size);
                return true;
            });
        } catch (IllegalArgumentException expected) {
            // damage found
        } catch (Exception e) {
            throw new AssertionError("damage must surface as IllegalArgumentException", e);
        }
    }

    @Property(tries = 50)
    void aSinkReturningFalseStopsTheWalk(@ForAll long seed, @ForAll @IntRange(min = 2, max = 20) int n)
            throws Exception {
        ByteBuffer batch = batch(new Random(seed), n);
        MutableRecordBatch b = MemoryRecords.readableRecords(batch.duplicate())
                .batches()
                .iterator()
                .next();
        int[] seen = {0};
        boolean complete = new RecordKeys(batch)
                .forEach(0, batch.remaining(), b.baseOffset(), b.countOrNull(), (key, offset) -> {
                    seen[0]++;
                    return false;
                });
        assertThat(seen[0]).isLessThanOrEqualTo(1);
        assertThat(complete).as("stopped at the first keyed record, if any").isEqualTo(seen[0] == 0);
        assertThatThrownBy(() -> new RecordKeys(batch)
                        .forEach(0, batch.remaining() - 1, b.baseOffset(), b.countOrNull(), (key, offset) -> true))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static ByteBuffer batch(Random random, int n) {
        SimpleRecord[] records = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            byte[] key = random.nextInt(5) == 0 ? null : bytes(random, random.nextInt(200));
            byte[] value = random.nextInt(5) == 0 ? null : bytes(random, random.nextInt(3000));
            Header[] headers = new Header[random.nextInt(3)];
            for (int h = 0; h < headers.length; h++) {
                headers[h] = new RecordHeader("h" + h, bytes(random, random.nextInt(20)));
            }
            records[i] = new SimpleRecord(1_700_000_000_000L + random.nextInt(1_000_000), key, value, headers);
        }
        return MemoryRecords.withRecords(random.nextInt(1_000_000), Compression.NONE, records)
                .buffer();
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}
