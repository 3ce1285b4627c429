package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.CorruptBatchException;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionTest {
    static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    DiskStorageEngine engine;

    Partition open(EngineConfig cfg, TopicConfig tc) {
        engine = new DiskStorageEngine(cfg);
        if (engine.topic("t").isEmpty()) {
            engine.createTopic("t", 1, tc);
        }
        return engine.openPartition(TP);
    }

    Partition open() {
        return open(EngineConfig.defaults(dir), TopicConfig.EMPTY);
    }

    Partition reopen() {
        engine.close();
        engine = new DiskStorageEngine(engine.config());
        return engine.openPartition(TP);
    }

    @AfterEach
    void close() {
        if (engine != null) {
            engine.close();
        }
    }

    static AppendResult ack(Partition p, ByteBuffer b) throws Exception {
        return p.append(b, Acks.ALL, -1).get();
    }

    static List<Long> baseOffsets(ByteBuffer records) {
        List<Long> out = new ArrayList<>();
        int pos = 0;
        while (pos < records.limit()) {
            out.add(records.getLong(pos));
            pos += records.getInt(pos + RecordBatchHeader.LENGTH_OFFSET) + RecordBatchHeader.LOG_OVERHEAD;
        }
        return out;
    }

    @Test
    void offsetsAreAssignedContiguouslyAndBytesStoredVerbatim() throws Exception {
        Partition p = open();
        ByteBuffer sent = TestBatches.batch(3, 1000);
        ByteBuffer copy =
                ByteBuffer.allocate(sent.limit()).put(sent.duplicate()).flip();
        assertThat(ack(p, sent).baseOffset()).isZero();
        assertThat(ack(p, TestBatches.batch(2, 1000)).baseOffset()).isEqualTo(3);
        assertThat(p.state().highWatermark()).isEqualTo(5);
        ByteBuffer stored = p.read(0, 1 << 20, Long.MAX_VALUE).records();
        // Byte opacity: only baseOffset (0 here) and partitionLeaderEpoch (0 here vs -1 sent) differ.
        copy.putInt(RecordBatchHeader.PARTITION_LEADER_EPOCH_OFFSET, 0);
        assertThat(stored.duplicate().limit(copy.limit())).isEqualTo(copy);
    }

    @Test
    void readReturnsWholeBatchesAtLeastOneAndHonoursTheCap() throws Exception {
        Partition p = open();
        for (int i = 0; i < 5; i++) {
            ack(p, TestBatches.batch(2, 1000));
        }
        int oneBatch = TestBatches.batch(2, 1000).limit();
        assertThat(baseOffsets(p.read(0, 1, Long.MAX_VALUE).records())).containsExactly(0L);
        assertThat(baseOffsets(p.read(3, oneBatch * 2, Long.MAX_VALUE).records()))
                .containsExactly(2L, 4L);
        assertThat(baseOffsets(p.read(0, 1 << 20, 4).records())).containsExactly(0L, 2L);
        assertThat(p.read(10, 100, Long.MAX_VALUE).records().remaining()).isZero();
        assertThatThrownBy(() -> p.read(11, 100, Long.MAX_VALUE))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.OFFSET_OUT_OF_RANGE));
    }

    @Test
    void aCorruptBatchIsRefusedAndNothingIsWritten() throws Exception {
        Partition p = open();
        ack(p, TestBatches.batch(1, 1));
        long size = Files.size(p.dir().resolve("00000000-00000000000000000000.log"));
        ByteBuffer bad = TestBatches.batch(2, 1);
        bad.put(bad.limit() - 1, (byte) (bad.get(bad.limit() - 1) ^ 1));
        assertThatThrownBy(() -> ack(p, bad)).hasCauseInstanceOf(CorruptBatchException.class);
        assertThat(Files.size(p.dir().resolve("00000000-00000000000000000000.log")))
                .isEqualTo(size);
        assertThat(p.state().highWatermark()).isEqualTo(1);
    }

    @Test
    void rollsWhenTheSegmentIsFullAndReadsAcrossSegments() throws Exception {
        Partition p = open(EngineConfig.defaults(dir).withSegmentBytes(2048), TopicConfig.EMPTY);
        for (int i = 0; i < 20; i++) {
            ack(p, TestBatches.sized(300));
        }
        try (Stream<Path> s = Files.list(p.dir())) {
            assertThat(s.filter(f -> f.toString().endsWith(".log")).count()).isGreaterThan(3);
        }
        for (long o = 0; o < 20; o++) {
            assertThat(baseOffsets(p.read(o, 1, Long.MAX_VALUE).records())).containsExactly(o);
        }
        p = reopen();
        assertThat(p.state().highWatermark()).isEqualTo(20);
        assertThat(baseOffsets(p.read(13, 1, Long.MAX_VALUE).records())).containsExactly(13L);
    }

    @Test
    void idempotentRetriesAreDuplicatesEvenAfterReopen() throws Exception {
        Partition p = open();
        AppendResult first = ack(p, TestBatches.idempotent(7, (short) 0, 0, 3));
        ack(p, TestBatches.idempotent(7, (short) 0, 3, 2));
        AppendResult dup = ack(p, TestBatches.idempotent(7, (short) 0, 0, 3));
        assertThat(dup.duplicate()).isTrue();
        assertThat(dup.baseOffset()).isEqualTo(first.baseOffset());
        assertThat(p.state().highWatermark()).isEqualTo(5);

        p = reopen();
        AppendResult again = ack(p, TestBatches.idempotent(7, (short) 0, 3, 2));
        assertThat(again.duplicate()).isTrue();
        assertThat(again.baseOffset()).isEqualTo(3);
        assertThat(p.state().highWatermark()).isEqualTo(5);
        assertThat(ack(p, TestBatches.idempotent(7, (short) 0, 5, 1)).baseOffset())
                .isEqualTo(5);
    }

    @Test
    void sequenceGapsAndStaleEpochsAreRefused() throws Exception {
        Partition p = open();
        ack(p, TestBatches.idempotent(9, (short) 2, 0, 2));
        assertThatThrownBy(() -> ack(p, TestBatches.idempotent(9, (short) 2, 5, 1)))
                .cause()
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.OUT_OF_ORDER_SEQUENCE));
        assertThatThrownBy(() -> ack(p, TestBatches.idempotent(9, (short) 1, 2, 1)))
                .cause()
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.PRODUCER_FENCED));
        // A new epoch starts again at sequence 0.
        assertThat(ack(p, TestBatches.idempotent(9, (short) 3, 0, 1)).duplicate())
                .isFalse();
        assertThat(p.state().highWatermark()).isEqualTo(3);
    }

    @Test
    void theDuplicateWindowHoldsFiveBatches() throws Exception {
        Partition p = open();
        for (int i = 0; i < 6; i++) {
            ack(p, TestBatches.idempotent(1, (short) 0, i, 1));
        }
        assertThat(ack(p, TestBatches.idempotent(1, (short) 0, 1, 1)).duplicate())
                .isTrue();
        assertThatThrownBy(() -> ack(p, TestBatches.idempotent(1, (short) 0, 0, 1)))
                .cause()
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.OUT_OF_ORDER_SEQUENCE));
    }

    @Test
    void acksAllWaitsForAnFsyncAndAcksOneDoesNot() throws Exception {
        Partition p = open();
        long before = p.fsyncCount();
        p.append(TestBatches.batch(1, 1), Acks.LEADER, -1).get();
        ack(p, TestBatches.batch(1, 1));
        assertThat(p.fsyncCount()).isGreaterThan(before);
        // With the flush interval raised, acks=all no longer waits for (or causes) an fsync per append.
        Partition q = reopenWith(TopicConfig.EMPTY.withKafkaConfig("flush.messages", "1000"));
        long f = q.fsyncCount();
        for (int i = 0; i < 50; i++) {
            ack(q, TestBatches.batch(1, 1));
        }
        assertThat(q.fsyncCount()).isEqualTo(f);
    }

    Partition reopenWith(TopicConfig tc) {
        engine.updateTopicConfig("t", tc);
        return reopen();
    }

    @Test
    void deleteRecordsAdvancesLogStartDurablyAndRemovesCoveredSegmentsOnly() throws Exception {
        Partition p = open(EngineConfig.defaults(dir).withSegmentBytes(2048), TopicConfig.EMPTY);
        for (int i = 0; i < 20; i++) {
            ack(p, TestBatches.sized(300));
        }
        long files = countLogs(p.dir());
        assertThat(p.deleteRecords(7)).isEqualTo(7);
        assertThat(countLogs(p.dir())).isLessThan(files);
        assertThatThrownBy(() -> p.read(6, 1, Long.MAX_VALUE)).isInstanceOf(StorageException.class);
        assertThat(baseOffsets(p.read(7, 1, Long.MAX_VALUE).records())).containsExactly(7L);
        assertThatThrownBy(() -> p.deleteRecords(21))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.OFFSET_OUT_OF_RANGE));
        assertThat(p.deleteRecords(3)).isEqualTo(7);
        Partition q = reopen();
        assertThat(q.state().logStartOffset()).isEqualTo(7);
        // -1 means the high watermark; the active segment stays.
        assertThat(q.deleteRecords(-1)).isEqualTo(20);
        assertThat(countLogs(q.dir())).isGreaterThanOrEqualTo(1);
        assertThat(ack(q, TestBatches.batch(1, 1)).baseOffset()).isEqualTo(20);
    }

    static long countLogs(Path d) throws Exception {
        try (Stream<Path> s = Files.list(d)) {
            return s.filter(f -> f.toString().endsWith(".log")).count();
        }
    }

    @Test
    void retentionRemovesOldAndExcessSegmentsButNeverTheActiveOne() throws Exception {
        Instant now = Instant.parse("2026-01-10T00:00:00Z");
        EngineConfig cfg =
                EngineConfig.defaults(dir).withSegmentBytes(2048).withClock(Clock.fixed(now, ZoneOffset.UTC));
        Partition p = open(cfg, TopicConfig.EMPTY.withKafkaConfig("retention.ms", "3600000"));
        long old = now.minusSeconds(7200).toEpochMilli();
        for (int i = 0; i < 10; i++) {
            ack(p, TestBatches.batch(20, old));
        }
        for (int i = 0; i < 4; i++) {
            ack(p, TestBatches.batch(20, now.toEpochMilli()));
        }
        long logs = countLogs(p.dir());
        assertThat(engine.runRetention(now.toEpochMilli())).isGreaterThan(0);
        assertThat(countLogs(p.dir())).isLessThan(logs);
        assertThat(p.state().logStartOffset()).isGreaterThan(0);
        // Everything recent is still readable.
        assertThat(p.read(p.state().highWatermark() - 20, 1, Long.MAX_VALUE)
                        .records()
                        .remaining())
                .isPositive();

        engine.updateTopicConfig("t", TopicConfig.EMPTY.withKafkaConfig("retention.bytes", "1"));
        engine.runRetention(now.toEpochMilli());
        assertThat(countLogs(p.dir())).isEqualTo(1);
        assertThat(p.state().logStartOffset())
                .isEqualTo(p.read(p.state().logStartOffset(), 1, Long.MAX_VALUE)
                        .records()
                        .getLong(0));
    }

    /** A clock a test moves by hand. */
    static final class MovableClock extends Clock {
        volatile Instant now;

        MovableClock(Instant start) {
            now = start;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void aQuietSegmentRollsAfterSevenDaysUnsetAndAfterSegmentMsWhenSet() throws Exception {
        // Wall-clock start: a reopened segment is dated by its file's last write.
        Instant start = Instant.now();
        MovableClock clock = new MovableClock(start);
        Partition p = open(EngineConfig.defaults(dir).withClock(clock), TopicConfig.EMPTY);
        ack(p, TestBatches.batch(1, start.toEpochMilli()));
        clock.now = start.plus(java.time.Duration.ofDays(6));
        ack(p, TestBatches.batch(1, clock.now.toEpochMilli()));
        assertThat(countLogs(p.dir())).isEqualTo(1);
        clock.now = start.plus(java.time.Duration.ofDays(7));
        ack(p, TestBatches.batch(1, clock.now.toEpochMilli()));
        assertThat(countLogs(p.dir())).isEqualTo(2);
        // After a restart the segment is dated by when its file was last written, never by client timestamps.
        engine.updateTopicConfig("t", TopicConfig.EMPTY.withKafkaConfig("segment.ms", "60000"));
        Partition q = reopen();
        clock.now = clock.now.plusSeconds(61);
        ack(q, TestBatches.batch(1, clock.now.toEpochMilli()));
        assertThat(countLogs(q.dir())).isEqualTo(3);
    }

    @Test
    void ancientClientTimestampsDoNotMakeSegmentsRollPerBatch() throws Exception {
        Partition p = open();
        for (int i = 0; i < 5; i++) {
            ack(p, TestBatches.batch(1, 1_000L));
        }
        p = reopen();
        for (int i = 0; i < 5; i++) {
            ack(p, TestBatches.batch(1, 1_000L));
        }
        assertThat(countLogs(p.dir())).isEqualTo(1);
    }

    @Test
    void timestampLookups() throws Exception {
        Partition p = open();
        ack(p, TestBatches.batch(2, 100));
        ack(p, TestBatches.batch(2, 500));
        ack(p, TestBatches.batch(2, 300));
        StoredBatch spanning = p.firstBatchWithMaxTimestampAtLeast(200, 0).orElseThrow();
        assertThat(spanning.header().baseOffset()).isEqualTo(2);
        assertThat(spanning.header().maxTimestamp()).isEqualTo(501);
        assertThat(spanning.bytes().remaining()).isEqualTo(spanning.header().sizeInBytes());
        assertThat(p.firstBatchWithMaxTimestampAtLeast(200, 4)
                        .orElseThrow()
                        .header()
                        .baseOffset())
                .isEqualTo(4);
        assertThat(p.firstBatchWithMaxTimestampAtLeast(10_000, 0)).isEmpty();
        assertThat(p.firstBatchWithMaxTimestamp().orElseThrow().header().baseOffset())
                .isEqualTo(2);
        // The in-memory time index built by the lookups above is extended over what is appended after them.
        ack(p, TestBatches.batch(2, 900));
        assertThat(p.firstBatchWithMaxTimestampAtLeast(800, 0)
                        .orElseThrow()
                        .header()
                        .baseOffset())
                .isEqualTo(6);
        Partition q = reopen();
        assertThat(q.firstBatchWithMaxTimestamp().orElseThrow().header().baseOffset())
                .isEqualTo(6);
        q.deleteRecords(3);
        assertThat(q.firstBatchWithMaxTimestampAtLeast(0, 0).orElseThrow().logStartOffset())
                .isEqualTo(3);
        assertThat(q.firstBatchWithMaxTimestampAtLeast(0, 0)
                        .orElseThrow()
                        .header()
                        .baseOffset())
                .isEqualTo(2);
    }

    @Test
    void highWatermarkWaitersWakeOnAppend() throws Exception {
        Partition p = open();
        CompletableFuture<Void> w = p.awaitHighWatermarkAbove(0);
        assertThat(w).isNotDone();
        ack(p, TestBatches.batch(1, 1));
        w.get();
        assertThat(p.awaitHighWatermarkAbove(0)).isDone();
    }

    @Test
    void aCancelledLongPollLeavesNoWaiterBehind() throws Exception {
        Partition p = open();
        for (int i = 0; i < 1000; i++) {
            p.awaitHighWatermarkAbove(5).cancel(false);
        }
        CompletableFuture<Void> live = p.awaitHighWatermarkAbove(0);
        assertThat(p.pendingHighWatermarkWaiters()).isEqualTo(1);
        ack(p, TestBatches.batch(1, 1));
        live.get();
        assertThat(p.pendingHighWatermarkWaiters()).isZero();
    }

    @Test
    void leaderEpochFenceAndClosedPartition() throws Exception {
        Partition p = open(EngineConfig.defaults(dir).withLeaderEpoch(3), TopicConfig.EMPTY);
        assertThatThrownBy(() -> p.append(TestBatches.batch(1, 1), Acks.ALL, 2).get())
                .cause()
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FENCED_LEADER_EPOCH));
        assertThat(p.append(TestBatches.batch(1, 1), Acks.ALL, 3).get().baseOffset())
                .isZero();
        assertThat(p.endOffsetForEpoch(3)).contains(new PartitionLog.EpochEndOffset(3, 1));
        p.close();
        assertThatThrownBy(() -> p.append(TestBatches.batch(1, 1), Acks.ALL, -1).get())
                .cause()
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.CLOSED));
    }

    @Test
    void aSecondOpenOfTheSamePartitionIsRefusedByTheLock() {
        Partition p = open();
        assertThatThrownBy(() -> Partition.open(
                        p.dir(),
                        TP,
                        engine.config(),
                        TopicConfig.EMPTY,
                        new EngineExecutors(engine.config().fsyncTimeout())))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.LOCKED));
    }

    /**
     * Group commit: 16 appenders waiting for acks=all share fsyncs. The acceptance bar is at most
     * 0.25 fsyncs per acknowledged append.
     */
    @Test
    void sixteenConcurrentAcksAllAppendersShareFsyncs() throws Exception {
        Partition p = open();
        int threads = 16;
        int perThread = 200;
        long before = p.fsyncCount();
        List<Thread> ts = new ArrayList<>();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(
                    () -> {
                        try {
                            for (int i = 0; i < perThread; i++) {
                                ack(p, TestBatches.batch(1, 1));
                            }
                        } catch (Exception e) {
                            errors.add(e);
                        }
                    },
                    "appender-" + t);
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
        assertThat(errors).isEmpty();
        long fsyncs = p.fsyncCount() - before;
        double perAppend = (double) fsyncs / (threads * perThread);
        System.out.printf(
                "group commit: %d appends, %d fsyncs, %.3f fsyncs/append%n", threads * perThread, fsyncs, perAppend);
        assertThat(p.state().highWatermark()).isEqualTo(threads * perThread);
        assertThat(perAppend).isLessThanOrEqualTo(0.25);
    }

    @Test
    void multipleBatchesInOneAppendAreAllOrNothing() throws Exception {
        Partition p = open();
        ByteBuffer a = TestBatches.batch(2, 1);
        ByteBuffer b = TestBatches.batch(3, 1);
        ByteBuffer both =
                ByteBuffer.allocate(a.limit() + b.limit()).put(a).put(b).flip();
        AppendResult r = ack(p, both);
        assertThat(r.baseOffset()).isZero();
        assertThat(r.lastOffset()).isEqualTo(4);
        ByteBuffer c = TestBatches.batch(2, 1);
        ByteBuffer d = TestBatches.batch(3, 1);
        d.put(d.limit() - 1, (byte) 0x55);
        ByteBuffer bad =
                ByteBuffer.allocate(c.limit() + d.limit()).put(c).put(d).flip();
        assertThatThrownBy(() -> ack(p, bad)).isInstanceOf(ExecutionException.class);
        assertThat(p.state().highWatermark()).isEqualTo(5);
    }
}
