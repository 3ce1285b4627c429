package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.Acks;
import io.kaas.storage.AppendResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.PartitionState;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.state.ProducerStateTable;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Checks one reopened partition against what was promised ({@link PartitionModel}), then makes the
 * recovered log the model's new truth. Counts what it verified.
 */
final class RecoveredLogCheck {
    int batchesVerified;
    int retriesVerified;

    /** The partition's state files exist or not, but when they exist they parse. */
    static void stateFilesParse(Path partitionDir) {
        StateJson.read(partitionDir.resolve(Manifest.FILE_NAME), Manifest.class);
        StateJson.read(partitionDir.resolve(RecoveryCheckpoint.FILE_NAME), RecoveryCheckpoint.class);
        StateJson.read(partitionDir.resolve(ProducerStateSnapshot.FILE_NAME), ProducerStateSnapshot.class);
        StateJson.read(partitionDir.resolve(TxnIndexSnapshot.FILE_NAME), TxnIndexSnapshot.class);
        StateJson.read(partitionDir.resolve(LogStart.FILE_NAME), LogStart.class);
    }

    void check(TopicPartition tp, PartitionLog log, PartitionModel model, String context, Path dir) throws Exception {
        PartitionState state = log.state();
        String where = context + " " + tp + " " + describeDir(dir) + " " + state;
        assertThat(state.logStartOffset())
                .as("%s: log start below an acknowledged DeleteRecords/retention", where)
                .isGreaterThanOrEqualTo(model.acknowledgedLogStart());
        if (model.acknowledgedLogStart() > 0) {
            // The second durable copy: one damaged manifest must not be able to move the log start back.
            assertThat(StateJson.read(dir.resolve(LogStart.FILE_NAME), LogStart.class))
                    .as("%s: log-start.json", where)
                    .hasValueSatisfying(
                            c -> assertThat(c.logStartOffset()).isGreaterThanOrEqualTo(model.acknowledgedLogStart()));
        }
        assertThat(state.highWatermark())
                .as("%s: high watermark below an acknowledged append", where)
                .isGreaterThanOrEqualTo(model.durableEnd());

        indexesPointAtTheirBatches(dir, where);
        Map<Long, ByteBuffer> byBase = readAll(log, state, where);

        List<PartitionModel.Placed> recovered = new ArrayList<>();
        for (PartitionModel.Placed p : model.mustSurvive()) {
            if (p.lastOffset() < state.logStartOffset()) {
                continue; // deleted on purpose
            }
            ByteBuffer stored = byBase.get(p.baseOffset());
            assertThat(stored)
                    .as("%s: acknowledged batch at offset %d is missing", where, p.baseOffset())
                    .isNotNull();
            assertThat(RandomBatches.sameExceptAssignedFields(p.bytes(), stored))
                    .as("%s: acknowledged batch at offset %d came back with different bytes", where, p.baseOffset())
                    .isTrue();
            batchesVerified++;
        }

        Map<Long, List<ByteBuffer>> byProducer = new LinkedHashMap<>();
        Set<String> sequences = new HashSet<>();
        for (Map.Entry<Long, ByteBuffer> e : byBase.entrySet()) {
            RecordBatchHeader h = RecordBatchHeader.peek(e.getValue(), 0);
            recovered.add(
                    new PartitionModel.Placed(h.baseOffset(), h.lastOffset(), e.getValue(), Acks.ALL, h.producerId()));
            if (h.hasProducerId()) {
                assertThat(sequences.add(h.producerId() + "/" + h.producerEpoch() + "/" + h.baseSequence()))
                        .as(
                                "%s: producer %d sequence %d is in the log twice (second at offset %d)",
                                where, h.producerId(), h.baseSequence(), h.baseOffset())
                        .isTrue();
                byProducer
                        .computeIfAbsent(h.producerId(), k -> new ArrayList<>())
                        .add(e.getValue());
            }
        }

        // A retry of any batch a producer could still retry (one of its last five sends) is a duplicate with the
        // original offset.
        for (List<ByteBuffer> batches : byProducer.values()) {
            for (ByteBuffer original : batches) {
                RecordBatchHeader h = RecordBatchHeader.peek(original, 0);
                if (!model.inRetryWindow(h.producerId(), h.baseSequence(), ProducerStateTable.WINDOW)) {
                    continue;
                }
                long offset = original.getLong(0);
                AppendResult r;
                try {
                    r = log.append(RandomBatches.copy(original), Acks.ALL, -1).get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new AssertionError(
                            String.format(
                                    "%s: retry of the batch at offset %d failed; the producer's batches in the log: %s",
                                    where, offset, describe(batches)),
                            e.getCause());
                }
                assertThat(r.duplicate())
                        .as(
                                "%s: retry of the batch at offset %d was written again (at %d)",
                                where, offset, r.baseOffset())
                        .isTrue();
                assertThat(r.baseOffset())
                        .as("%s: retry of the batch at offset %d", where, offset)
                        .isEqualTo(offset);
                retriesVerified++;
            }
        }
        model.resetTo(recovered, state.highWatermark(), state.logStartOffset());
    }

    /** Every index entry of every segment points at a batch start whose offsets contain the entry's offset. */
    static void indexesPointAtTheirBatches(Path dir, String where) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir)) {
            for (Path log : files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList()) {
                long base = io.kaas.storage.segment.SegmentName.parse(
                                log.getFileName().toString())
                        .orElseThrow()
                        .baseOffset();
                Map<Long, long[]> batches = new TreeMap<>();
                try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(log)) {
                    io.kaas.storage.segment.BatchScanner scanner =
                            io.kaas.storage.segment.BatchScanner.ofWholeFile(ch, log, base);
                    io.kaas.storage.segment.ScannedBatch b;
                    while ((b = scanner.next()) != null) {
                        batches.put(
                                b.position(),
                                new long[] {b.header().baseOffset(), b.header().lastOffset()});
                    }
                }
                Path index = log.resolveSibling(log.getFileName().toString().replace(".log", ".index"));
                if (!java.nio.file.Files.exists(index)) {
                    continue;
                }
                for (io.kaas.storage.segment.IndexEntry e :
                        io.kaas.storage.segment.IndexFileFormat.readAll(index, base)) {
                    long[] range = batches.get((long) e.position());
                    assertThat(range != null && range[0] <= e.offset() && e.offset() <= range[1])
                            .as(
                                    "%s: %s entry (offset %d, position %d) does not point at a batch holding that offset",
                                    where, index.getFileName(), e.offset(), e.position())
                            .isTrue();
                }
            }
        }
    }

    /** The partition directory as a failure message shows it: files, sizes, state files. */
    static String describeDir(Path dir) {
        StringBuilder sb = new StringBuilder("[");
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                String name = f.getFileName().toString();
                sb.append(name).append(' ').append(java.nio.file.Files.size(f));
                if (name.endsWith(".json")) {
                    sb.append(' ').append(java.nio.file.Files.readString(f));
                } else if (name.endsWith(".log")) {
                    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(f)) {
                        io.kaas.storage.segment.BatchScanner scanner =
                                io.kaas.storage.segment.BatchScanner.ofWholeFile(ch, f, 0);
                        io.kaas.storage.segment.ScannedBatch b;
                        while ((b = scanner.next()) != null) {
                            sb.append(String.format(
                                    " %d:%d-%d",
                                    b.position(),
                                    b.header().baseOffset(),
                                    b.header().lastOffset()));
                        }
                        if (scanner.stopReason() != null) {
                            sb.append(" stop: ").append(scanner.stopReason().getMessage());
                        }
                    }
                } else if (name.endsWith(".index")) {
                    java.nio.ByteBuffer idx = java.nio.ByteBuffer.wrap(java.nio.file.Files.readAllBytes(f));
                    while (idx.remaining() >= 8) {
                        sb.append(String.format(" (+%d@%d)", idx.getInt(), idx.getInt()));
                    }
                }
                sb.append("; ");
            }
        } catch (java.io.IOException e) {
            sb.append(e);
        }
        return sb.append(']').toString();
    }

    private static String describe(List<ByteBuffer> batches) {
        StringBuilder sb = new StringBuilder();
        for (ByteBuffer b : batches) {
            RecordBatchHeader h = RecordBatchHeader.peek(b, 0);
            sb.append(String.format("[offset %d seq %d-%d] ", h.baseOffset(), h.baseSequence(), h.lastSequence()));
        }
        return sb.toString();
    }

    /** Every batch from log start to the high watermark, keyed by base offset, checking contiguity. */
    private static Map<Long, ByteBuffer> readAll(PartitionLog log, PartitionState state, String where) {
        Map<Long, ByteBuffer> out = new TreeMap<>();
        long next = state.logStartOffset();
        long expectedBase = -1;
        while (next < state.highWatermark()) {
            ByteBuffer chunk = log.read(next, 1 << 16, Long.MAX_VALUE).records();
            assertThat(chunk.remaining())
                    .as(
                            "%s: nothing readable at offset %d below the high watermark %d",
                            where, next, state.highWatermark())
                    .isPositive();
            int pos = chunk.position();
            while (pos < chunk.limit()) {
                RecordBatchHeader h = RecordBatchHeader.peek(chunk, pos);
                if (expectedBase < 0) {
                    assertThat(h.baseOffset())
                            .as("%s: first batch must contain log start %d", where, next)
                            .isLessThanOrEqualTo(next);
                    assertThat(h.lastOffset())
                            .as("%s: first batch must contain log start %d", where, next)
                            .isGreaterThanOrEqualTo(next);
                } else {
                    assertThat(h.baseOffset())
                            .as("%s: offsets not contiguous", where)
                            .isEqualTo(expectedBase);
                }
                assertThat(RecordBatchHeader.computeCrc(chunk, pos, h.sizeInBytes()))
                        .as("%s: CRC of batch at %d", where, h.baseOffset())
                        .isEqualTo(h.crc());
                ByteBuffer batch = ByteBuffer.allocate(h.sizeInBytes());
                batch.put(chunk.duplicate().position(pos).limit(pos + h.sizeInBytes()));
                out.put(h.baseOffset(), batch.flip());
                expectedBase = h.nextOffset();
                pos += h.sizeInBytes();
            }
            next = expectedBase;
        }
        assertThat(next)
                .as("%s: the last batch must end at the high watermark", where)
                .isEqualTo(state.highWatermark());
        return out;
    }
}
