import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * bench/recovery.sh's writer: fills one partition, {@code DATA_DIR/recovery/0}, through the engine with
 * about {@code MIB} MiB of 64-record uncompressed batches of 1 KiB values, all in the active segment
 * (segment.bytes above the size), then closes the engine cleanly. Run by the JDK's source launcher on
 * kaas's offline class path, so it needs no build of its own:
 *
 * <pre>java -cp "cli/target/lib/kaas-cli.jar:$(cat cli/target/lib/offline.classpath)" bench/src/recovery/WriteActiveSegment.java DATA_DIR MIB</pre>
 */
public final class WriteActiveSegment {
    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        long target = Long.parseLong(args[1]) << 20;
        EngineConfig config = EngineConfig.defaults(data).withSegmentBytes(target + (256L << 20))
                .withFlushIntervalMessages(Long.MAX_VALUE);
        SimpleRecord[] records = new SimpleRecord[64];
        Random random = new Random(42);
        for (int i = 0; i < records.length; i++) {
            byte[] value = new byte[1024];
            random.nextBytes(value);
            records[i] = new SimpleRecord(1_700_000_000_000L + i, ("key-" + i).getBytes(), value);
        }
        ByteBuffer template = MemoryRecords.withRecords(Compression.NONE, records).buffer();
        long written = 0;
        try (DiskStorageEngine engine = new DiskStorageEngine(config)) {
            engine.createTopic("recovery", 1, TopicConfig.EMPTY);
            PartitionLog log = engine.partition(new TopicPartition("recovery", 0));
            List<CompletableFuture<?>> pending = new ArrayList<>();
            while (written < target) {
                ByteBuffer batch = ByteBuffer.allocate(template.remaining()).put(template.duplicate()).flip();
                pending.add(log.append(batch, Acks.LEADER, -1));
                written += batch.remaining();
                if (pending.size() == 256) {
                    CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                    pending.clear();
                }
            }
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            log.flush();
        }
        System.out.println(written);
    }
}
