package io.kaas.cli.damage;

import io.kaas.cli.KaasRun;
import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.EngineObserver;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The partitions the campaign damages: each written through the real engine ({@link DiskStorageEngine})
 * in two leader epochs, each taken over (so the leader-epoch checkpoint has two entries), about three segments of a few
 * KB, then closed cleanly (recovery checkpoint at EOF, producer and transaction snapshots written).
 */
enum Scenario {
    PLAIN,
    COMPRESSED,
    TRANSACTIONAL,
    COMPACTED,
    DELETED;

    static final String TOPIC = "t";
    static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    static final long SEGMENT_BYTES = 1400;
    static final int INDEX_INTERVAL = 200;
    static final int BATCHES_PER_EPOCH = 12;
    static final List<Compression> CODECS = List.of(
            Compression.gzip().build(),
            Compression.snappy().build(),
            Compression.lz4().build(),
            Compression.zstd().build());

    static EngineConfig config(Path data, int epoch) {
        return EngineConfig.defaults(data)
                .withSegmentBytes(SEGMENT_BYTES)
                .withIndexIntervalBytes(INDEX_INTERVAL)
                .withLeaderEpoch(epoch);
    }

    /** Writes this scenario's topic {@code t}, partition 0, under {@code data}; returns the partition dir. */
    Path build(Path data) throws Exception {
        TopicConfig topic = this == COMPACTED
                ? new TopicConfig(null, null, null, null, "compact", null, null, null)
                : TopicConfig.EMPTY;
        for (int epoch = 1; epoch <= 2; epoch++) {
            // a takeover in each epoch, as a broker sharing the directory does: it records the epoch's start
            try (DiskStorageEngine engine = DiskStorageEngine.shared(config(data, epoch), EngineObserver.NONE)) {
                if (engine.topic(TOPIC).isEmpty()) {
                    engine.createTopic(TOPIC, 1, topic);
                }
                engine.takeOver(TP, epoch);
                PartitionLog log = engine.partition(TP);
                append(log, epoch);
                if (this == DELETED && epoch == 2) {
                    // past the first segment and into the second: the first is unlinked, log start mid-segment
                    log.deleteRecords(log.state().highWatermark() / 2 + 1);
                }
            }
        }
        Path dir = data.resolve(TOPIC).resolve("0");
        if (this == COMPACTED) {
            // cleaned once now, so a later pass over an undamaged copy has nothing left to remove
            KaasRun r = KaasRun.of("compact", dir.toString());
            if (r.exitCode() != 0) {
                throw new IllegalStateException("compacting the scenario failed: " + r);
            }
        }
        return dir;
    }

    private void append(PartitionLog log, int epoch) throws Exception {
        long pid = 7000 + epoch;
        short pepoch = 0;
        int txnSeq = 0;
        int idemSeq = 0;
        for (int i = 0; i < BATCHES_PER_EPOCH; i++) {
            ByteBuffer b = switch (this) {
                case PLAIN, DELETED -> TestBatches.batch(2 + i % 4, 1_000L + i);
                case COMPRESSED ->
                    TestBatches.batch(
                            3 + i % 3,
                            1_000L + i,
                            CODECS.get(i % CODECS.size()),
                            RecordBatch.NO_PRODUCER_ID,
                            RecordBatch.NO_PRODUCER_EPOCH,
                            RecordBatch.NO_SEQUENCE);
                case COMPACTED -> TestBatches.batch(3, 1_000L + i); // keys k0..k2 again and again
                case TRANSACTIONAL ->
                    switch (i % 3) {
                        case 0 -> TestBatches.transactional(pid, pepoch, (txnSeq += 2) - 2, 2);
                        case 1 -> TestBatches.marker(pid, pepoch, i % 2 == 1); // COMMIT and ABORT in turn
                        default -> TestBatches.idempotent(pid + 100, (short) 0, (idemSeq += 2) - 2, 2);
                    };
            };
            log.append(b, Acks.ALL, -1).get(10, TimeUnit.SECONDS);
        }
    }
}
