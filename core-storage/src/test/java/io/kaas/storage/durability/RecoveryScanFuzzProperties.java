package io.kaas.storage.durability;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.Acks;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.BatchScanner;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * The recovery scan over valid partitions (written by the engine with kafka-clients batches) that
 * were then truncated, bit-flipped, zero-filled and given garbage tails. Whatever the damage and the
 * options: no exception; a dry run (or a refusal) changes no byte; a real run only ever cuts log
 * files (never rewrites their bytes) and leaves every scanned segment ending on a batch boundary
 * with every batch CRC-valid, keeping all of them up to the first bad one; and a partition open
 * either succeeds or refuses with DAMAGED.
 */
class RecoveryScanFuzzProperties {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    /** Cases run (jqwik makes one instance of this class per property). */
    private long cases;

    enum DamageKind {
        TRUNCATE,
        FLIP,
        ZERO_FILL,
        GARBAGE_TAIL,
        ZERO_TAIL
    }

    /** One damage: {@code where} and {@code length} are fractions (per mille) of the target file. */
    record Damage(DamageKind kind, int fileIndex, boolean index, int where, int length, long seed) {}

    record Written(int batches, long segmentBytes, int indexInterval, long seed) {}

    record Options(
            boolean dryRun,
            RecoveryOptions.DamagePolicy policy,
            boolean useCheckpoint,
            boolean scanAll,
            boolean dropCheckpoint) {}

    @Property(tries = 300)
    void recoveryNeverFailsAndKeepsEveryBatchBeforeTheDamage(
            @ForAll("written") Written written,
            @ForAll("damages") List<Damage> damages,
            @ForAll("options") Options options)
            throws Exception {
        cases++;
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            Path data = fs.getPath("/data");
            Path dir = writePartition(data, written);
            if (options.dropCheckpoint()) {
                Files.delete(dir.resolve(RecoveryCheckpoint.FILE_NAME));
            }
            for (Damage d : damages) {
                damage(dir, d);
            }
            Path openCopy = fs.getPath("/copy");
            copyTree(data, openCopy);
            Map<String, byte[]> damaged = contents(dir);

            RecoveryOptions ro = new RecoveryOptions(
                    options.dryRun(),
                    options.policy(),
                    new IndexPolicy(written.indexInterval()),
                    options.useCheckpoint(),
                    0,
                    options.scanAll());
            RecoveryReport report = RecoveryScan.run(dir, ro);
            Map<String, byte[]> after = contents(dir);

            if (options.dryRun() || report.refused()) {
                assertThat(after.keySet())
                        .as("a dry run or refusal removes or adds no file")
                        .isEqualTo(damaged.keySet());
                after.forEach((name, bytes) -> assertThat(bytes)
                        .as("%s unchanged by a dry run or refusal", name)
                        .isEqualTo(damaged.get(name)));
            } else {
                checkRecovered(dir, damaged, after, options, written, report);
            }
            checkOpen(openCopy, written);
        }
    }

    @AfterProperty
    void summary() {
        System.out.printf("durability: %d recovery-scan fuzz cases%n", cases);
    }

    private static void checkRecovered(
            Path dir,
            Map<String, byte[]> damaged,
            Map<String, byte[]> after,
            Options options,
            Written written,
            RecoveryReport report)
            throws Exception {
        List<String> logs =
                after.keySet().stream().filter(SegmentName::isLogFile).sorted().toList();
        // The checkpoint is trusted: bytes before it are not rescanned, so damage there stays unseen by design.
        boolean checkpointTrusted = options.useCheckpoint() && damaged.containsKey(RecoveryCheckpoint.FILE_NAME);
        for (int i = 0; i < logs.size(); i++) {
            String name = logs.get(i);
            byte[] before = damaged.get(name);
            byte[] now = after.get(name);
            if (before == null
                    && options.policy() == RecoveryOptions.DamagePolicy.SALVAGE
                    && now.length == 0
                    && SegmentName.parse(name).orElseThrow().baseOffset()
                            == report.manifestAfter().highWatermark()) {
                // A salvage that found the log ending below the fsynced high watermark resumes it there, in a new
                // empty segment, so that offsets are never handed out twice.
                continue;
            }
            assertThat(before)
                    .as("recovery never creates a log file (%s)", name)
                    .isNotNull();
            assertThat(now.length).as("%s only shrinks", name).isLessThanOrEqualTo(before.length);
            if (options.policy() == RecoveryOptions.DamagePolicy.SALVAGE) {
                // what salvage keeps is what was there less the quarantined ranges; a torn tail after it may be cut
                byte[] kept = lessQuarantined(dir, name, before);
                assertThat(now.length)
                        .as("%s salvage shrinks only by ranges and a torn tail", name)
                        .isLessThanOrEqualTo(kept.length);
                assertThat(Arrays.equals(now, 0, now.length, kept, 0, now.length))
                        .as("%s is what it was less the quarantined" + " ranges (and a torn tail)", name)
                        .isTrue();
                continue;
            }
            assertThat(Arrays.equals(now, 0, now.length, before, 0, now.length))
                    .as("%s keeps its bytes (a prefix of what was there)", name)
                    .isTrue();
            boolean last = i == logs.size() - 1;
            boolean scanned = last || options.scanAll();
            if (!scanned || checkpointTrusted) {
                continue;
            }
            long base = SegmentName.parse(name).orElseThrow().baseOffset();
            long validEnd = validEnd(dir.resolve(name), before.length, base, before);
            // A CRC-valid batch whose base offset (outside the CRC) disagrees with its neighbours is itself the
            // damage: the cut may come one batch before where a scan that trusts base offsets stops.
            boolean blamedEarlier = now.length < validEnd
                    && report.damage().stream()
                            .anyMatch(d -> d.startsWith(dir.resolve(name) + ":" + now.length + ": ")
                                    && d.contains("outside the CRC"));
            assertThat((long) now.length)
                    .as("%s ends at the last valid batch before the damage, not earlier and not later", name)
                    .isEqualTo(blamedEarlier ? now.length : validEnd);
        }
    }

    /** {@code before} without the ranges the quarantine holds for {@code name}, each checked byte for byte. */
    private static byte[] lessQuarantined(Path dir, String name, byte[] before) throws Exception {
        Path root = dir.resolve(io.kaas.storage.recovery.Quarantine.DIR_NAME);
        if (!Files.isDirectory(root)) {
            return before;
        }
        java.io.ByteArrayOutputStream kept = new java.io.ByteArrayOutputStream();
        long at = 0;
        try (Stream<Path> runs = Files.list(root)) {
            for (Path run : runs.toList()) {
                List<io.kaas.storage.recovery.Quarantine.Entry> entries =
                        io.kaas.storage.recovery.Quarantine.readNote(run).entries().stream()
                                .filter(e -> e.file().equals(name))
                                .sorted(java.util.Comparator.comparingLong(
                                        io.kaas.storage.recovery.Quarantine.Entry::start))
                                .toList();
                for (io.kaas.storage.recovery.Quarantine.Entry e : entries) {
                    assertThat(Files.readAllBytes(run.resolve(e.saved())))
                            .as("quarantined %s", e.saved())
                            .isEqualTo(Arrays.copyOfRange(before, (int) e.start(), (int) e.end()));
                    kept.write(before, (int) at, (int) (e.start() - at));
                    at = e.end();
                }
            }
        }
        kept.write(before, (int) at, (int) (before.length - at));
        return kept.toByteArray();
    }

    /** Where an independent scan of the damaged bytes stops; the recovered file must be exactly that long. */
    private static long validEnd(Path like, int size, long base, byte[] bytes) throws Exception {
        Path tmp = like.resolveSibling("probe.bin");
        Files.write(tmp, bytes);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.READ)) {
            BatchScanner s = new BatchScanner(ch, tmp, 0, size, base).limitOffsets(base + Integer.MAX_VALUE);
            while (s.next() != null) {
                // walk
            }
            return s.position();
        } finally {
            Files.delete(tmp);
        }
    }

    /** Opening the damaged partition recovers it or refuses it with DAMAGED; nothing else. */
    private static void checkOpen(Path data, Written written) throws Exception {
        DiskStorageEngine engine = new DiskStorageEngine(config(data, written));
        try {
            PartitionLog log = engine.partition(TP);
            assertThat(log.state().highWatermark())
                    .isGreaterThanOrEqualTo(log.state().logStartOffset());
        } catch (StorageException e) {
            assertThat(e.kind()).as("open failed: %s", e.getMessage()).isEqualTo(StorageException.Kind.DAMAGED);
        } finally {
            engine.close();
        }
    }

    private static EngineConfig config(Path data, Written w) {
        return EngineConfig.defaults(data).withSegmentBytes(w.segmentBytes()).withIndexIntervalBytes(w.indexInterval());
    }

    private static Path writePartition(Path data, Written w) throws Exception {
        Random random = new Random(w.seed());
        try (DiskStorageEngine engine = new DiskStorageEngine(config(data, w))) {
            engine.createTopic("t", 1, TopicConfig.EMPTY);
            PartitionLog log = engine.partition(TP);
            int seq = 0;
            for (int i = 0; i < w.batches(); i++) {
                int records = 1 + random.nextInt(3);
                boolean idempotent = random.nextBoolean();
                ByteBuffer b = RandomBatches.build(
                        random,
                        records,
                        random.nextInt(200),
                        idempotent ? 7 : -1,
                        (short) (idempotent ? 0 : -1),
                        idempotent ? seq : -1);
                seq += idempotent ? records : 0;
                log.append(b, random.nextBoolean() ? Acks.ALL : Acks.LEADER, -1).get(10, TimeUnit.SECONDS);
            }
        }
        return data.resolve("t").resolve("0");
    }

    private static void damage(Path dir, Damage d) throws Exception {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> d.index()
                            ? SegmentName.isIndexFile(p.getFileName().toString())
                            : SegmentName.isLogFile(p.getFileName().toString()))
                    .sorted()
                    .toList();
        }
        if (files.isEmpty()) {
            return;
        }
        // Bias towards the last (active) segment, where torn tails happen.
        Path f = d.fileIndex() % 3 == 0 ? files.get(d.fileIndex() % files.size()) : files.get(files.size() - 1);
        byte[] bytes = Files.readAllBytes(f);
        Random random = new Random(d.seed());
        int at = bytes.length == 0 ? 0 : (int) ((long) bytes.length * d.where() / 1000);
        int len = Math.max(1, (int) ((long) Math.max(bytes.length, 64) * d.length() / 1000));
        switch (d.kind()) {
            case TRUNCATE -> bytes = Arrays.copyOf(bytes, at);
            case FLIP -> {
                if (bytes.length > 0) {
                    bytes[Math.min(at, bytes.length - 1)] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case ZERO_FILL ->
                Arrays.fill(bytes, Math.min(at, bytes.length), Math.min(bytes.length, at + len), (byte) 0);
            case GARBAGE_TAIL -> {
                byte[] garbage = new byte[len];
                random.nextBytes(garbage);
                bytes = concat(bytes, garbage);
            }
            case ZERO_TAIL -> bytes = concat(bytes, new byte[len]);
        }
        Files.write(f, bytes);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static Map<String, byte[]> contents(Path dir) throws Exception {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                if (Files.isRegularFile(p)) {
                    out.put(p.getFileName().toString(), Files.readAllBytes(p));
                }
            }
        }
        return out;
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.getFileName().toString().equals(".lock")) {
                    Files.copy(p, target);
                }
            }
        }
    }

    @Provide
    Arbitrary<Written> written() {
        return Combinators.combine(
                        Arbitraries.integers().between(1, 40),
                        Arbitraries.of(1024L, 2048L, 1L << 20),
                        Arbitraries.of(0, 200, 4096),
                        Arbitraries.longs())
                .as(Written::new);
    }

    @Provide
    Arbitrary<List<Damage>> damages() {
        return Combinators.combine(
                        Arbitraries.of(DamageKind.class),
                        Arbitraries.integers().between(0, 100),
                        Arbitraries.integers().between(0, 9).map(i -> i == 0),
                        Arbitraries.integers().between(0, 1000),
                        Arbitraries.integers().between(0, 300),
                        Arbitraries.longs())
                .as(Damage::new)
                .list()
                .ofMinSize(1)
                .ofMaxSize(3);
    }

    @Provide
    Arbitrary<Options> options() {
        return Combinators.combine(
                        Arbitraries.of(true, false),
                        Arbitraries.of(RecoveryOptions.DamagePolicy.class),
                        Arbitraries.of(true, false),
                        Arbitraries.of(true, false),
                        Arbitraries.of(true, false))
                .as(Options::new);
    }
}
