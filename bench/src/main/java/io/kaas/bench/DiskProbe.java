package io.kaas.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Measures the physical limits every broker figure should be read against, on the directory the
 * brokers write to:
 * <ol>
 *   <li>4 KiB append + {@code FileChannel.force(false)} (fdatasync) per second, one after another:
 *   the ceiling of any broker that fsyncs each request on its own; group commit is how a broker
 *   beats it;</li>
 *   <li>sequential write MB/s (MiB/s, as Kafka's tools count): 1 MiB writes, with the closing fsync inside the timed span so the
 *   page cache cannot flatter it.</li>
 * </ol>
 * Usage: {@code DiskProbe <dir> <secondsPerTest>}. Prints two lines; the files are deleted.
 */
public final class DiskProbe {

    private static final int SMALL = 4096;
    private static final int LARGE = 1 << 20;
    /** Bounds the sequential file so a fast disk cannot fill a small one. */
    private static final long SEQUENTIAL_CAP_BYTES = 2L << 30;

    private DiskProbe() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: DiskProbe <dir> <secondsPerTest>");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        long nanos = (long) (Double.parseDouble(args[1]) * 1e9);
        fsyncRate(dir.resolve("disk-probe-fsync.tmp"), nanos);
        sequential(dir.resolve("disk-probe-seq.tmp"), nanos);
    }

    private static void fsyncRate(Path file, long nanos) throws IOException {
        ByteBuffer block = randomBlock(SMALL);
        long ops = 0;
        long start = System.nanoTime();
        long elapsed;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            do {
                block.clear();
                while (block.hasRemaining()) {
                    ch.write(block);
                }
                ch.force(false);
                ops++;
                elapsed = System.nanoTime() - start;
            } while (elapsed < nanos);
        } finally {
            Files.deleteIfExists(file);
        }
        double perSec = ops / (elapsed / 1e9);
        System.out.printf(Locale.ROOT, "disk: 4 KiB write+fdatasync: %.0f /s (%.2f ms each, %d in %.1f s)%n",
                perSec, 1000.0 / perSec, ops, elapsed / 1e9);
    }

    private static void sequential(Path file, long nanos) throws IOException {
        ByteBuffer block = randomBlock(LARGE);
        long bytes = 0;
        long start = System.nanoTime();
        long elapsed;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (System.nanoTime() - start < nanos && bytes < SEQUENTIAL_CAP_BYTES) {
                block.clear();
                while (block.hasRemaining()) {
                    bytes += ch.write(block);
                }
            }
            ch.force(true);
            elapsed = System.nanoTime() - start;
        } finally {
            Files.deleteIfExists(file);
        }
        // MB here is MiB, as Kafka's performance tools count it, so the columns compare directly.
        System.out.printf(Locale.ROOT, "disk: sequential write (1 MiB writes, fsync at end): %.0f MB/s (%d MiB in %.1f s)%n",
                bytes / (double) (1 << 20) / (elapsed / 1e9), bytes >> 20, elapsed / 1e9);
    }

    /** Random bytes, so a compressing or deduplicating layer under the filesystem gains nothing. */
    private static ByteBuffer randomBlock(int size) {
        byte[] bytes = new byte[size];
        ThreadLocalRandom.current().nextBytes(bytes);
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        buffer.put(bytes).flip();
        return buffer;
    }
}
