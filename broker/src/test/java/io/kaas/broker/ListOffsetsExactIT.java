package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ListOffsets by timestamp (KIP-79) and max timestamp (KIP-734) exact to the record, for every codec:
 * batches of 40 records with out-of-order timestamps, compared for targets before, inside (each record's
 * timestamp and its neighbours), between and after the batches with (1) the answer computed from the
 * produced records — the first offset ≥ log start whose timestamp is ≥ the target — and (2) Apache's own
 * {@code FileRecords.searchForTimestamp} run over the very segment file kaas wrote. Then again after
 * DeleteRecords moved log start into the middle of a batch.
 */
class ListOffsetsExactIT {
    private static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");
    private static final int BATCHES = 5, PER_BATCH = 40;

    @TempDir
    Path dir;

    record Produced(long offset, long timestamp) {}

    @Test
    void byTimestampAndMaxTimestampAnswerTheExactRecordForEveryCodec() throws Exception {
        try (TestBroker b = new TestBroker(dir.resolve("data"));
                Admin admin = b.admin()) {
            admin.createTopics(CODECS.stream()
                            .map(c -> new NewTopic("ts-" + c, 1, (short) 1))
                            .toList())
                    .all()
                    .get();
            Map<String, List<Produced>> produced = new HashMap<>();
            for (String codec : CODECS) {
                produced.put(codec, produce(b, codec));
            }
            TreeSet<Long> targets = new TreeSet<>(List.of(0L, 15_000L, 25_700L, 60_000L, Long.MAX_VALUE / 2));
            produced.get("none")
                    .forEach(p -> targets.addAll(List.of(p.timestamp() - 1, p.timestamp(), p.timestamp() + 1)));

            assertLookups(b, admin, produced, targets, 0);
            // Log start inside the second batch: records below it are gone, even where their batch spans the target.
            long logStart = PER_BATCH + 15;
            Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
            CODECS.forEach(c -> delete.put(tp(c), RecordsToDelete.beforeOffset(logStart)));
            admin.deleteRecords(delete).all().get();
            assertLookups(b, admin, produced, targets, logStart);

            Map<TopicPartition, OffsetSpec> special = new HashMap<>();
            CODECS.forEach(c -> special.put(tp(c), OffsetSpec.maxTimestamp()));
            Map<TopicPartition, ListOffsetsResultInfo> max =
                    admin.listOffsets(special).all().get();
            for (String codec : CODECS) {
                Produced expected = firstWithMaxTimestamp(produced.get(codec));
                assertThat(max.get(tp(codec)).offset()).as(codec).isEqualTo(expected.offset());
                assertThat(max.get(tp(codec)).timestamp()).as(codec).isEqualTo(expected.timestamp());
            }
            TopicPartition none = tp("none");
            assertThat(admin.listOffsets(Map.of(none, OffsetSpec.earliestLocal()))
                            .all()
                            .get()
                            .get(none)
                            .offset())
                    .isEqualTo(logStart);
            ListOffsetsResultInfo tiered = admin.listOffsets(Map.of(none, OffsetSpec.latestTiered()))
                    .all()
                    .get()
                    .get(none);
            assertThat(tiered.offset()).isEqualTo(-1);
            assertThat(tiered.timestamp()).isEqualTo(-1);
            assertThat(tiered.leaderEpoch()).isEmpty();
        }
    }

    private static TopicPartition tp(String codec) {
        return new TopicPartition("ts-" + codec, 0);
    }

    /**
     * Five batches (one flush each) of 40 records; batch i's timestamps are a permutation of
     * 10,000·(i+1) + {0, 10, …, 390}. The largest timestamp also appears twice in batch 3, so
     * MAX_TIMESTAMP must pick its first record there, not the one in batch 4.
     */
    private static List<Produced> produce(TestBroker b, String codec) throws Exception {
        List<Produced> out = new ArrayList<>();
        long globalMax = 10_000L * BATCHES + (PER_BATCH - 1) * 10L;
        try (KafkaProducer<byte[], byte[]> p = b.producer(Map.of(
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                codec,
                ProducerConfig.LINGER_MS_CONFIG,
                10_000,
                ProducerConfig.BATCH_SIZE_CONFIG,
                1 << 20))) {
            for (int i = 0; i < BATCHES; i++) {
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                List<Long> stamps = new ArrayList<>();
                for (int j = 0; j < PER_BATCH; j++) {
                    long ts = 10_000L * (i + 1) + ((j * 17L) % PER_BATCH) * 10;
                    if (i == 3 && j >= PER_BATCH - 2) {
                        ts = globalMax;
                    }
                    stamps.add(ts);
                    sent.add(p.send(
                            new ProducerRecord<>("ts-" + codec, 0, ts, null, ("value " + i + "/" + j).getBytes())));
                }
                p.flush();
                for (int j = 0; j < PER_BATCH; j++) {
                    out.add(new Produced(sent.get(j).get().offset(), stamps.get(j)));
                }
            }
        }
        return out;
    }

    private void assertLookups(
            TestBroker b, Admin admin, Map<String, List<Produced>> produced, TreeSet<Long> targets, long logStart)
            throws Exception {
        Map<String, FileRecords> segments = new HashMap<>();
        try {
            for (String codec : CODECS) {
                assertThat(batchCount(b, codec)).as("one batch per flush").isEqualTo(BATCHES);
                // Apache's reader gets a copy: its close() may trim the file it opened.
                Path copy = dir.resolve("apache-" + codec + "-" + logStart + ".log");
                Files.copy(segmentFile(b, codec).toPath(), copy);
                segments.put(codec, FileRecords.open(copy.toFile(), false));
            }
            for (long target : targets) {
                Map<TopicPartition, OffsetSpec> request = new HashMap<>();
                CODECS.forEach(c -> request.put(tp(c), OffsetSpec.forTimestamp(target)));
                Map<TopicPartition, ListOffsetsResultInfo> answers =
                        admin.listOffsets(request).all().get();
                for (String codec : CODECS) {
                    ListOffsetsResultInfo kaas = answers.get(tp(codec));
                    Optional<Produced> expected = produced.get(codec).stream()
                            .filter(p -> p.offset() >= logStart && p.timestamp() >= target)
                            .findFirst();
                    FileRecords.TimestampAndOffset apache =
                            segments.get(codec).searchForTimestamp(target, 0, logStart, Integer.MAX_VALUE);
                    String what = codec + " target " + target + " log start " + logStart;
                    assertThat(kaas.offset())
                            .as(what)
                            .isEqualTo(expected.map(Produced::offset).orElse(-1L));
                    assertThat(kaas.timestamp())
                            .as(what)
                            .isEqualTo(expected.map(Produced::timestamp).orElse(-1L));
                    assertThat(apache == null ? -1L : apache.offset)
                            .as("Apache's answer, " + what)
                            .isEqualTo(kaas.offset());
                    if (apache != null) {
                        assertThat(kaas.leaderEpoch()).as(what).isEqualTo(apache.leaderEpoch);
                    }
                }
            }
        } finally {
            for (FileRecords f : segments.values()) {
                f.close();
            }
        }
    }

    private static Produced firstWithMaxTimestamp(List<Produced> records) {
        long max = records.stream().mapToLong(Produced::timestamp).max().orElseThrow();
        return records.stream().filter(p -> p.timestamp() == max).findFirst().orElseThrow();
    }

    private static File segmentFile(TestBroker b, String codec) throws Exception {
        try (Stream<Path> files = Files.list(b.dataDir().resolve("ts-" + codec).resolve("0"))) {
            List<Path> logs = files.filter(f -> f.toString().endsWith(".log")).toList();
            assertThat(logs).hasSize(1);
            return logs.get(0).toFile();
        }
    }

    private static int batchCount(TestBroker b, String codec) throws Exception {
        Path copy = Files.createTempFile(b.dataDir().getParent(), "count-" + codec, ".log");
        Files.copy(segmentFile(b, codec).toPath(), copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        try (FileRecords f = FileRecords.open(copy.toFile(), false)) {
            int n = 0;
            for (var ignored : f.batches()) {
                n++;
            }
            return n;
        }
    }
}
