package io.kaas.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.FetchResult;
import io.kaas.storage.MemoryStorageEngine;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zero-copy Fetch: the frame written as bytes + file regions is byte-identical to the frame carrying
 * copied records, for every Fetch version and for reads cut by maxBytes and by the read cap; removed
 * segments stay readable for a slice in flight; the in-memory engine copies.
 */
class ZeroCopyFetchTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    private static PartitionLog filled(StorageEngine engine) {
        engine.createTopic("t", 1, TopicConfig.EMPTY);
        PartitionLog log = engine.partition(TP);
        for (int i = 0; i < 40; i++) {
            log.append(TestBatches.batch(1 + i % 7, 1_000L + i), Acks.ALL, -1).join();
        }
        return log;
    }

    @Test
    void slicedFrameIsByteIdenticalToCopiedFrameAtEveryFetchVersion() throws IOException {
        try (DiskStorageEngine engine =
                new DiskStorageEngine(EngineConfig.defaults(dir).withSegmentBytes(2048))) {
            PartitionLog log = filled(engine);
            long hwm = log.state().highWatermark();
            long[][] reads = {{0, 1 << 20, hwm}, {0, 1, hwm}, {17, 700, hwm}, {33, 1 << 20, 60}, {hwm, 1 << 20, hwm}};
            int compared = 0;
            for (long[] r : reads) {
                FetchResult copied = log.read(r[0], (int) r[1], r[2]);
                FetchResult sliced = log.readForTransfer(r[0], (int) r[1], r[2]);
                assertThat(copied.file()).isNull();
                assertThat(sliced.sizeInBytes()).isEqualTo(copied.sizeInBytes());
                if (copied.sizeInBytes() > 0) {
                    assertThat(sliced.file()).isNotNull();
                }
                for (short v = 4; v <= ApiKeys.FETCH.latestVersion(); v++) {
                    byte[] viaCopy = frameBytes(ResponseEncoder.encode(
                            ApiKeys.FETCH,
                            v,
                            7,
                            response(MemoryRecords.readableRecords(
                                    copied.records().duplicate()))));
                    BaseRecords slicedRecords = sliced.file() != null
                            ? new FileSliceRecords(sliced.file())
                            : MemoryRecords.readableRecords(sliced.records());
                    List<Object> parts = ResponseEncoder.encode(ApiKeys.FETCH, v, 7, response(slicedRecords));
                    if (sliced.file() != null) {
                        assertThat(parts).hasAtLeastOneElementOfType(FileRegion.class);
                    }
                    assertThat(frameBytes(parts))
                            .as("Fetch v%d read %s", v, java.util.Arrays.toString(r))
                            .isEqualTo(viaCopy);
                    compared++;
                }
            }
            assertThat(compared).isGreaterThan(60);
            // Releasing the regions must not have closed the segment's channel.
            assertThat(log.read(0, 1 << 20, hwm).sizeInBytes()).isPositive();
        }
    }

    @Test
    void aSliceOfASegmentRemovedByDeleteRecordsStillSends() throws IOException {
        try (DiskStorageEngine engine =
                new DiskStorageEngine(EngineConfig.defaults(dir).withSegmentBytes(2048))) {
            PartitionLog log = filled(engine);
            long hwm = log.state().highWatermark();
            FetchResult copied = log.read(0, 1 << 20, hwm);
            FetchResult sliced = log.readForTransfer(0, 1 << 20, hwm);
            Path partitionDir = dir.resolve("t").resolve("0");
            long segmentsBefore = logFiles(partitionDir);

            log.deleteRecords(hwm - 1);

            assertThat(logFiles(partitionDir))
                    .as("removed segments are unlinked at once")
                    .isLessThan(segmentsBefore);
            List<Object> parts =
                    ResponseEncoder.encode(ApiKeys.FETCH, (short) 12, 1, response(new FileSliceRecords(sliced.file())));
            byte[] viaCopy = frameBytes(ResponseEncoder.encode(
                    ApiKeys.FETCH, (short) 12, 1, response(MemoryRecords.readableRecords(copied.records()))));
            assertThat(frameBytes(parts)).isEqualTo(viaCopy);
        }
    }

    @Test
    void theInMemoryEngineCopiesInsteadOfSlicing() {
        try (MemoryStorageEngine engine = new MemoryStorageEngine()) {
            PartitionLog log = filled(engine);
            long hwm = log.state().highWatermark();
            FetchResult r = log.readForTransfer(5, 1 << 20, hwm);
            assertThat(r.file()).isNull();
            assertThat(r.records()).isEqualTo(log.read(5, 1 << 20, hwm).records());
            assertThat(r.sizeInBytes()).isPositive();
        }
    }

    private static long logFiles(Path partitionDir) throws IOException {
        try (Stream<Path> s = Files.list(partitionDir)) {
            return s.filter(p -> p.toString().endsWith(".log")).count();
        }
    }

    private static FetchResponseData response(BaseRecords records) {
        FetchResponseData r = new FetchResponseData().setSessionId(0);
        FetchResponseData.FetchableTopicResponse t = new FetchResponseData.FetchableTopicResponse()
                .setTopic("t")
                .setTopicId(Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"));
        r.responses().add(t);
        t.partitions()
                .add(new FetchResponseData.PartitionData()
                        .setPartitionIndex(0)
                        .setHighWatermark(99)
                        .setLastStableOffset(99)
                        .setLogStartOffset(0)
                        .setRecords(records));
        // A second partition after the first: bytes follow the region, then another (empty) records field.
        t.partitions()
                .add(new FetchResponseData.PartitionData()
                        .setPartitionIndex(1)
                        .setHighWatermark(0)
                        .setLastStableOffset(0)
                        .setLogStartOffset(0)
                        .setRecords(MemoryRecords.EMPTY));
        return r;
    }

    /** What the socket would carry: every part in order, regions transferred the way Netty's NIO path does. */
    private static byte[] frameBytes(List<Object> parts) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WritableByteChannel sink = Channels.newChannel(out);
        for (Object part : parts) {
            if (part instanceof ByteBuf b) {
                b.getBytes(b.readerIndex(), out, b.readableBytes());
                b.release();
            } else {
                FileRegion region = (FileRegion) part;
                long done = 0;
                while (done < region.count()) {
                    done += region.transferTo(sink, done);
                }
                region.release();
            }
        }
        return out.toByteArray();
    }
}
