package io.kaas.inspect;

import io.kaas.inspect.verify.Verifier;
import io.kaas.inspect.verify.VerifyReport;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.DumpLogSegments;

/**
 * Throughput of dump-segment (batch level), verify and Apache's kafka-dump-log on one segment, in the
 * same run, on the same (page-cached) file. Not a test: run by hand, see inspect/README.md.
 * Args: directory, segment size in MiB (default 1024).
 */
public final class DumpBenchmark {
    private DumpBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long mib = args.length > 1 ? Long.parseLong(args[1]) : 1024;
        Path log = dir.resolve(new SegmentName(-1, 0, true).logFileName());
        long size = write(log, mib << 20);
        Exit.setExitProcedure((code, msg) -> {});
        PrintWriter nowhere = new PrintWriter(OutputStream.nullOutputStream());
        for (int round = 1; round <= 2; round++) {
            long t0 = System.nanoTime();
            new SegmentDumper(DumpOptions.DEFAULTS, nowhere, nowhere).dump(List.of(log));
            long t1 = System.nanoTime();
            new Verifier(new VerifyReport(p -> {})).verify(log, b -> {});
            long t2 = System.nanoTime();
            PrintStream out = System.out;
            System.setOut(new PrintStream(new BufferedOutputStream(OutputStream.nullOutputStream(), 1 << 16)));
            try {
                DumpLogSegments.main(new String[] {"--files", log.toString()});
            } finally {
                System.setOut(out);
            }
            long t3 = System.nanoTime();
            System.out.printf(
                    "round %d, %d MiB: kaas dump-segment %.0f MB/s, kaas verify %.0f MB/s, Apache kafka-dump-log %.0f MB/s%n",
                    round, size >> 20, mbps(size, t1 - t0), mbps(size, t2 - t1), mbps(size, t3 - t2));
        }
        Files.delete(log);
        Files.deleteIfExists(log.resolveSibling(new SegmentName(-1, 0, true).indexFileName()));
    }

    private static double mbps(long bytes, long nanos) {
        return bytes / 1e6 / (nanos / 1e9);
    }

    /** A segment of ~16 KiB uncompressed batches of 16 records with 1 KiB values, offsets contiguous. */
    private static long write(Path log, long target) throws Exception {
        SimpleRecord[] records = new SimpleRecord[16];
        for (int i = 0; i < records.length; i++) {
            records[i] = new SimpleRecord(LogFixture.TIMESTAMP, ("key-" + i).getBytes(), new byte[1024]);
        }
        ByteBuffer template =
                MemoryRecords.withRecords(0L, Compression.NONE, records).buffer();
        int n = template.remaining();
        ByteBuffer chunk = ByteBuffer.allocate(n * 256);
        long written = 0;
        long offset = 0;
        try (FileChannel ch = FileChannel.open(
                log, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            while (written < target) {
                chunk.clear();
                while (chunk.remaining() >= n) {
                    int at = chunk.position();
                    chunk.put(template.duplicate());
                    RecordBatchHeader.assignOffsetAndEpoch(chunk, at, offset, 0);
                    offset += 16;
                }
                chunk.flip();
                while (chunk.hasRemaining()) {
                    written += ch.write(chunk);
                }
            }
        }
        return written;
    }
}
