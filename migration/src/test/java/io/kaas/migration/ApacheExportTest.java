package io.kaas.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicIdentity;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ApacheExport} on small kaas data dirs written here: what it writes under Apache's names, what a dry run
 * leaves (nothing), and what it refuses before writing anything (an open transaction, a damaged segment).
 */
class ApacheExportTest {
    private static final ExportOptions WRITE =
            new ExportOptions(false, false, null, 1, "CONTROLLER", "localhost:9093", 50);

    @TempDir
    Path work;

    private final List<String> seen = new ArrayList<>();
    private final ExportListener listener = new ExportListener() {
        @Override
        public void partitionStarted(String topicPartition, int index, int total, long bytes) {
            seen.add("start " + topicPartition);
        }

        @Override
        public void partitionDone(PartitionOutcome o) {
            seen.add("done " + o.topic() + "-" + o.partition() + " " + o.logStartOffset() + ".." + o.logEndOffset()
                    + " epoch " + o.leaderEpoch() + " " + o.transfer());
        }

        @Override
        public void groupDone(String groupId, int offsets, int partition) {
            seen.add("group " + groupId);
        }
    };

    @Test
    void writesApacheNamesAndRefusesATargetThatIsNotEmpty() throws Exception {
        Path data = work.resolve("data");
        UUID id = UUID.randomUUID();
        segment(data, "t", 0, 0, MemoryRecords.withRecords(0L, Compression.NONE, 3, records(5)));
        segment(data, "t", 0, 5, MemoryRecords.withRecords(5L, Compression.NONE, 4, records(2)));
        StateJson.write(data.resolve("t").resolve(TopicIdentity.FILE_NAME), new TopicIdentity(id));
        Path out = work.resolve("apache");

        ApacheExport.Summary dry = new ApacheExport(
                        new ExportOptions(true, false, null, 1, "CONTROLLER", "localhost:9093", 50), listener)
                .run(data, out);
        assertThat(dry.partitions()).isEqualTo(1);
        assertThat(out).doesNotExist();

        ApacheExport.Summary s = new ApacheExport(WRITE, listener).run(data, out);
        assertThat(s.topics()).isEqualTo(1);
        assertThat(seen).contains("done t-0 0..7 epoch 4 hard links and copies");
        Path p = out.resolve("t-0");
        assertThat(p.resolve("00000000000000000000.log")).hasSameBinaryContentAs(kaasLog(data, 3, 0));
        assertThat(p.resolve("00000000000000000005.log")).hasSameBinaryContentAs(kaasLog(data, 4, 5));
        assertThat(Files.readString(p.resolve("leader-epoch-checkpoint"))).isEqualTo("0\n2\n3 0\n4 5\n");
        assertThat(new PartitionMetadataFile(PartitionMetadataFile.newFile(p.toFile()), new LogDirFailureChannel(1))
                        .read()
                        .topicId())
                .isEqualTo(new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits()));
        assertThat(Files.readString(out.resolve(ApacheNames.HIGH_WATERMARK_CHECKPOINT)))
                .contains("t 0 7");

        assertThatThrownBy(() -> new ApacheExport(WRITE, listener).run(data, out))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("not empty");
    }

    @Test
    void anOpenTransactionIsRefusedBeforeAnythingIsWritten() throws Exception {
        Path data = work.resolve("data");
        segment(
                data,
                "t",
                0,
                0,
                MemoryRecords.withTransactionalRecords(0L, Compression.NONE, 77L, (short) 0, 0, 0, records(2)));
        Path out = work.resolve("apache");
        assertThatThrownBy(() -> new ApacheExport(WRITE, listener).run(data, out))
                .isInstanceOf(OpenTransactionsException.class)
                .hasMessageContaining("77");
        assertThat(out).doesNotExist();
    }

    @Test
    void aDamagedSegmentIsRefusedWithFileAndByte() throws Exception {
        Path data = work.resolve("data");
        segment(data, "t", 0, 0, MemoryRecords.withRecords(0L, Compression.NONE, 0, records(5)));
        segment(data, "t", 0, 5, MemoryRecords.withRecords(5L, Compression.NONE, 0, records(2)));
        Path log = kaasLog(data, 0, 0);
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
            f.seek(70);
            int b = f.read();
            f.seek(70);
            f.write(b ^ 0xff);
        }
        Path out = work.resolve("apache");
        assertThatThrownBy(() -> new ApacheExport(WRITE, listener).run(data, out))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(log.toString() + ":");
        assertThat(out).doesNotExist();
    }

    private static SimpleRecord[] records(int n) {
        SimpleRecord[] out = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            out[i] = new SimpleRecord(1_700_000_000_000L + i, ("k" + i).getBytes(), ("v" + i).getBytes());
        }
        return out;
    }

    private static Path kaasLog(Path data, int epoch, long base) {
        return data.resolve("t")
                .resolve("0")
                .resolve(SegmentName.of(epoch, base).logFileName());
    }

    private static void segment(Path data, String topic, int partition, long base, MemoryRecords records)
            throws Exception {
        Path dir = data.resolve(topic).resolve(Integer.toString(partition));
        Files.createDirectories(dir);
        ByteBuffer buf = records.buffer();
        byte[] bytes = new byte[buf.remaining()];
        buf.get(bytes);
        int epoch = records.batches().iterator().next().partitionLeaderEpoch();
        Files.write(dir.resolve(SegmentName.of(Math.max(epoch, 0), base).logFileName()), bytes);
    }
}
