package io.kaas.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Writes the cleaner benchmark's log: {@code mib} MiB of 1 KiB records over {@code keys} keys (uniformly
 * random), in uncompressed batches of 16 records with a partition leader epoch of 0, cut into segments of
 * {@code segmentMib} MiB with Apache's names ({@code 00000000000000000000.log}; no indexes: both Apache
 * and kaas rebuild them), and a last, active segment holding one batch. Both cleaners read the same
 * bytes: kaas reads Apache-named segments as its own.
 *
 * <p>Usage: {@code CleanerLogWriter DIR MIB KEYS SEGMENT_MIB}
 */
public final class CleanerLogWriter {
    private CleanerLogWriter() {}

    public static void main(String[] args) throws IOException {
        Path dir = Files.createDirectories(Path.of(args[0]));
        long mib = Long.parseLong(args[1]);
        int keys = Integer.parseInt(args[2]);
        long segmentBytes = Long.parseLong(args[3]) << 20;
        Random random = new Random(42);
        byte[] value = new byte[1024 - 16];
        long offset = 0;
        long written = 0;
        long total = mib << 20;
        FileChannel segment = open(dir, 0);
        long inSegment = 0;
        while (written < total) {
            ByteBuffer batch = batch(offset, random, keys, value);
            if (inSegment + batch.remaining() > segmentBytes) {
                segment.close();
                segment = open(dir, offset);
                inSegment = 0;
            }
            inSegment += batch.remaining();
            written += batch.remaining();
            while (batch.hasRemaining()) {
                segment.write(batch);
            }
            offset += 16;
        }
        segment.close();
        // the active segment, never cleaned
        try (FileChannel active = open(dir, offset)) {
            active.write(batch(offset, random, keys, value));
        }
        System.out.println(offset + 16);
    }

    private static ByteBuffer batch(long offset, Random random, int keys, byte[] value) {
        SimpleRecord[] records = new SimpleRecord[16];
        for (int i = 0; i < records.length; i++) {
            random.nextBytes(value);
            byte[] key = String.format("key-%08d", random.nextInt(keys)).getBytes(StandardCharsets.US_ASCII);
            records[i] = new SimpleRecord(System.currentTimeMillis(), key, value.clone());
        }
        ByteBuffer b = MemoryRecords.withRecords(offset, Compression.NONE, 0, records).buffer();
        return b;
    }

    private static FileChannel open(Path dir, long base) throws IOException {
        return FileChannel.open(dir.resolve(String.format("%020d.log", base)), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }
}
