package io.kaas.storage.testfs;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.io.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Writers append and fsync while the power goes: every record whose fsync returned before the cut
 * is in the image after it. This is the promise engine tests rely on to check acknowledged records.
 */
class PowerCutRaceTest {
    private static final int WRITERS = 4;
    private static final int RECORD = 8;

    @RepeatedTest(5)
    void everyRecordWhoseFsyncReturnedSurvives() throws Exception {
        FaultyFileSystem fs = FaultyFileSystem.wrap(Jimfs.newFileSystem(Configuration.unix()));
        Path dir = Files.createDirectories(fs.root().resolve("data"));
        List<Path> files = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            Path file = dir.resolve("w" + w + ".log");
            Files.createFile(file);
            files.add(file);
        }
        AtomicFile.fsyncDirectory(dir);
        AtomicFile.fsyncDirectory(fs.root());

        AtomicLongArray acked = new AtomicLongArray(WRITERS);
        AtomicInteger threadNumber = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(
                WRITERS, r -> new Thread(r, "power-cut-race-writer-" + threadNumber.getAndIncrement()));
        List<Future<?>> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            writers.add(pool.submit(() -> {
                try (FileChannel ch = FileChannel.open(files.get(writer), CREATE, WRITE)) {
                    for (long seq = 0; ; seq++) {
                        ByteBuffer record = ByteBuffer.allocate(RECORD).putLong(0, seq);
                        while (record.hasRemaining()) {
                            ch.write(record);
                        }
                        ch.force(false);
                        acked.set(writer, seq + 1);
                    }
                } catch (IOException expected) {
                    return; // the power went
                }
            }));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> acked.get(0) > 50 && acked.get(WRITERS - 1) > 50);
        FaultyFileSystem rebooted = fs.powerCut();
        long[] ackedAtCut = new long[WRITERS];
        for (Future<?> writer : writers) {
            writer.get(20, TimeUnit.SECONDS);
        }
        for (int w = 0; w < WRITERS; w++) {
            ackedAtCut[w] = acked.get(w); // no ack can follow a failed fsync, so this bounds what was acked
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

        for (int w = 0; w < WRITERS; w++) {
            ByteBuffer survived = ByteBuffer.wrap(Files.readAllBytes(rebooted.pathOf(files.get(w))));
            assertThat(survived.remaining())
                    .as("writer %d bytes", w)
                    .isGreaterThanOrEqualTo((int) ackedAtCut[w] * RECORD);
            for (long seq = 0; seq < ackedAtCut[w]; seq++) {
                assertThat(survived.getLong()).as("writer %d record %d", w, seq).isEqualTo(seq);
            }
        }
        rebooted.close();
    }
}
