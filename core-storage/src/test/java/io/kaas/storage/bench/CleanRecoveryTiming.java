package io.kaas.storage.bench;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/**
 * Time of the recovery scan of one clean active segment read whole (no checkpoint: every batch's
 * header and CRC), the case a resynchronising scan must not slow down. Not JMH: one scan of a 1 GiB
 * file is long enough to time directly. Usage: {@code CleanRecoveryTiming DIR [MiB] [runs]}; prints
 * each run and the median. The segment is written once and reused (delete DIR to rebuild it).
 */
public final class CleanRecoveryTiming {
    private CleanRecoveryTiming() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]).resolve("t").resolve("0");
        long mib = args.length > 1 ? Long.parseLong(args[1]) : 1024;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path log = dir.resolve(SegmentName.of(0, 0).logFileName());
        long offsets = 0;
        if (!Files.exists(log)) {
            Files.createDirectories(dir);
            try (OutputStream out = Files.newOutputStream(log, StandardOpenOption.CREATE_NEW)) {
                long written = 0;
                while (written < mib << 20) {
                    List<ByteBuffer> batches = LogFixture.plain(offsets, 64, 16);
                    byte[] bytes = LogFixture.concat(batches);
                    out.write(bytes);
                    written += bytes.length;
                    offsets = LogFixture.nextOffset(batches);
                }
            }
            StateJson.write(dir.resolve(Manifest.FILE_NAME), new Manifest(0, offsets, 0));
        }
        RecoveryOptions options =
                new RecoveryOptions(true, RecoveryOptions.DamagePolicy.REFUSE, new IndexPolicy(4096), false, 0, true);
        // CPU time of the scanning thread as well as wall time: on a shared machine the wall time mostly
        // measures the other tenants.
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long[] ms = new long[runs];
        long[] cpuMs = new long[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            long c0 = threads.getCurrentThreadCpuTime();
            RecoveryReport r = RecoveryScan.run(dir, options);
            cpuMs[i] = (threads.getCurrentThreadCpuTime() - c0) / 1_000_000;
            ms[i] = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf(
                    "run %d: %d ms (%d ms CPU), %d bytes scanned, refused=%s, damage=%s%n",
                    i, ms[i], cpuMs[i], r.bytesScanned(), r.refused(), r.damage());
        }
        Arrays.sort(ms);
        Arrays.sort(cpuMs);
        System.out.printf(
                "median %d ms, %d ms CPU over %d runs (%d MiB)%n",
                ms[runs / 2], cpuMs[runs / 2], runs, Files.size(log) >> 20);
    }
}
