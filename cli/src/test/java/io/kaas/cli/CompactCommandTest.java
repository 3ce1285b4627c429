package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.storage.cleaner.CleanedLog;
import io.kaas.storage.cleaner.CleanerScenario;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testing.LogFixture;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactCommandTest {
    @TempDir
    Path data;

    Path p0;
    CleanerScenario scenario;

    @BeforeEach
    void dataDir() throws Exception {
        // a compacted topic "c" (random keys, tombstones, transactions, codecs) and a delete-policy topic "t"
        p0 = Files.createDirectories(data.resolve("c/0"));
        scenario = CleanerScenario.generate(7, 80, 8);
        scenario.write(p0);
        StateJson.write(
                data.resolve("c").resolve(TopicConfig.FILE_NAME),
                new TopicConfig(null, null, null, null, "compact", null, null, null));
        LogFixture.partition(data, "t", 0, 3, 4);
    }

    @Test
    void aDamagedTopicConfigRefusesTheTopicInEveryToolNamingTheFile() throws Exception {
        Path config = data.resolve("c").resolve(TopicConfig.FILE_NAME);
        Files.writeString(
                config, "{\"cleanupPolicy\":\"comp"); // torn: the policy cannot be known, so nothing is guessed
        Map<String, Long> before = new HashMap<>();
        try (var files = Files.list(p0)) {
            for (Path f : files.toList()) {
                before.put(f.getFileName().toString(), Files.size(f));
            }
        }

        CliRun compact = CliRun.run(new CompactCommand(), data.toString());
        CliRun recover =
                CliRun.run(new RecoverCommand(), "--force", data.resolve("c").toString());
        CliRun verify = CliRun.run(new VerifyCommand(), data.resolve("c").toString());

        assertThat(compact.exit()).as(compact.toString()).isEqualTo(1);
        assertThat(compact.err()).contains(config + ":0: not a valid topic config");
        assertThat(recover.exit())
                .as("--force only removes log bytes: " + recover)
                .isEqualTo(1);
        assertThat(recover.out() + recover.err()).contains(config + ":0: ");
        assertThat(verify.exit()).isEqualTo(1);
        assertThat(verify.out()).contains(config + ":0: ");
        Map<String, Long> after = new HashMap<>();
        try (var files = Files.list(p0)) {
            for (Path f : files.toList()) {
                after.put(f.getFileName().toString(), Files.size(f));
            }
        }
        assertThat(after).isEqualTo(before);
    }

    @Test
    void keepsTheLatestRecordOfEachKeyAndVerifyAndRecoverAgree() {
        long before = sizeOf(p0);
        CliRun r = CliRun.run(new CompactCommand(), data.toString());

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out())
                .contains(p0 + ": compacted ")
                .contains("removed ")
                .contains(data.resolve("t/0") + ": skipped");
        assertThat(r.err()).contains("2 partition(s): 1 compacted");
        Map<String, Long> left = new HashMap<>();
        for (CleanedLog.Read rec : CleanedLog.read(p0).records) {
            if (!rec.control() && rec.offset() < scenario.activeBase()) {
                assertThat(left.put(rec.key(), rec.offset()))
                        .as("one record per key")
                        .isNull();
            }
        }
        scenario.latestBelow(scenario.activeBase())
                .values()
                .forEach(w -> assertThat(left).containsEntry(w.key(), w.offset()));
        assertThat(sizeOf(p0)).isLessThan(before);

        assertThat(CliRun.run(new VerifyCommand(), data.toString()).exit())
                .as("offset gaps are legal in a compacted topic")
                .isZero();
        CliRun recover = CliRun.run(new RecoverCommand(), "--dry-run", p0.toString());
        assertThat(recover.exit()).isZero();
        assertThat(recover.out()).contains(": clean;");

        CliRun again = CliRun.run(new CompactCommand(), p0.toString());
        assertThat(again.out()).as("nothing dirty after a pass").contains(p0 + ": clean");
    }

    @Test
    void offsetGapsAreLegalOnlyInACompactedTopic() throws Exception {
        assertThat(CliRun.run(new CompactCommand(), p0.toString()).exit()).isZero();
        Path first = p0.resolve(
                scenario.write(Files.createTempDirectory(data, "x")).get(0).logFileName());
        CliRun dump = CliRun.run(new DumpSegmentCommand(), "--deep-iteration", first.toString());
        assertThat(dump.exit()).as(dump.toString()).isZero();
        assertThat(dump.err()).doesNotContain("Non-consecutive");

        // the same cleaned files in a topic whose policy is delete: the gaps are reported
        Path copy = Files.createDirectories(data.resolve("d/0"));
        StateJson.write(
                data.resolve("d").resolve(TopicConfig.FILE_NAME),
                TopicConfig.EMPTY.withKafkaConfig("cleanup.policy", "delete"));
        try (var files = Files.list(p0)) {
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        CliRun verify = CliRun.run(new VerifyCommand(), copy.toString());
        assertThat(verify.exit()).isEqualTo(1);
        assertThat(verify.out()).contains("offset gap");
        assertThat(CliRun.run(
                                new DumpSegmentCommand(),
                                "--deep-iteration",
                                copy.resolve(first.getFileName()).toString())
                        .err())
                .contains("Non-consecutive offsets");
    }

    @Test
    void dryRunReportsTheSameAndChangesNoByte() {
        SortedMap<String, String> before = LogFixture.snapshot(data);
        CliRun dry = CliRun.run(new CompactCommand(), "--dry-run", "--json", p0.toString());
        assertThat(dry.exit()).as(dry.toString()).isZero();
        assertThat(LogFixture.snapshot(data)).isEqualTo(before);

        CliRun real = CliRun.run(new CompactCommand(), "--json", p0.toString());
        JsonNode d = json(dry.out());
        JsonNode w = json(real.out());
        assertThat(d.get("status").asText()).isEqualTo("would_compact");
        assertThat(w.get("status").asText()).isEqualTo("compacted");
        // (bytes may differ by a varint: a tombstone's delete horizon is stamped from each run's clock)
        for (String field :
                new String[] {"recordsRemoved", "keysRemoved", "abortedRemoved", "keys", "segmentsCleaned"}) {
            assertThat(d.get(field)).as(field).isEqualTo(w.get(field));
        }
        assertThat(w.get("recordsRemoved").asLong()).isPositive();
    }

    @Test
    void dryRunListsEveryFileTheRealRunChanges() {
        SortedMap<String, String> before = LogFixture.snapshot(data);
        CliRun dry = CliRun.run(new CompactCommand(), "--dry-run", p0.toString());
        assertThat(dry.exit()).as(dry.toString()).isZero();
        Set<String> listed = new TreeSet<>();
        Set<String> removed = new TreeSet<>();
        for (String line : dry.out().lines().map(String::strip).toList()) {
            for (String verb : new String[] {"would replace ", "would remove ", "would write "}) {
                if (line.startsWith(verb)) {
                    String file = data.relativize(Path.of(line.substring(verb.length())))
                            .toString();
                    listed.add(file);
                    if (verb.equals("would remove ")) {
                        removed.add(file);
                    }
                }
            }
        }
        assertThat(listed).as(dry.out()).contains("c/0/cleaner-checkpoint.json");

        CliRun real = CliRun.run(new CompactCommand(), p0.toString());
        assertThat(real.exit()).as(real.toString()).isZero();
        SortedMap<String, String> after = LogFixture.snapshot(data);
        Set<String> changed = new TreeSet<>();
        before.forEach((f, hash) -> {
            if (!hash.equals(after.get(f))) {
                changed.add(f);
            }
        });
        after.keySet().stream().filter(f -> !before.containsKey(f)).forEach(changed::add);
        assertThat(listed)
                .as("the dry run listed every file the real run changed")
                .containsAll(changed);
        assertThat(removed).allSatisfy(f -> assertThat(after).doesNotContainKey(f));
        assertThat(real.out()).contains("  replaced ").contains("  wrote " + p0.resolve("cleaner-checkpoint.json"));
    }

    @Test
    void aTopicThatIsNotCompactedIsLeftAlone() {
        SortedMap<String, String> before = LogFixture.snapshot(data.resolve("t"));
        CliRun r = CliRun.run(new CompactCommand(), data.resolve("t").toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("skipped (cleanup.policy is delete (default), not compact)");
        assertThat(LogFixture.snapshot(data.resolve("t"))).isEqualTo(before);
    }

    @Test
    void minCompactionLagKeepsYoungSegmentsDirty() {
        SortedMap<String, String> before = LogFixture.snapshot(p0);
        // the records are from 2023: a lag of a century keeps every segment
        CliRun r = CliRun.run(
                new CompactCommand(),
                "--min-compaction-lag-ms",
                Long.toString(100L * 365 * 24 * 3600 * 1000),
                p0.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains(p0 + ": clean");
        assertThat(LogFixture.snapshot(p0)).isEqualTo(before);
    }

    @Test
    void refusesAPartitionARunningBrokerOwns() throws Exception {
        SortedMap<String, String> before = LogFixture.snapshot(p0);
        try (FileChannel ch =
                        FileChannel.open(data.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = ch.lock()) {
            CliRun r = CliRun.run(new CompactCommand(), p0.toString());
            assertThat(r.exit()).isEqualTo(3);
            assertThat(r.err()).contains("owned by a running broker");
        }
        Files.delete(data.resolve(".lock"));
        assertThat(LogFixture.snapshot(p0)).isEqualTo(before);
    }

    @Test
    void aBatchThatFailsItsCrcIsReportedAndStopsThePassBeforeAnythingIsSwapped() throws Exception {
        Path first;
        try (var files = Files.list(p0)) {
            first = files.filter(f -> f.toString().endsWith(".log"))
                    .sorted()
                    .findFirst()
                    .orElseThrow();
        }
        LogFixture.flipByte(first, 70); // inside the first batch's records: its CRC no longer matches
        SortedMap<String, String> before = LogFixture.snapshot(data);
        CliRun r = CliRun.run(new CompactCommand(), p0.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains(first + ":0: CRC mismatch").contains("nothing was compacted");
        assertThat(LogFixture.snapshot(data)).isEqualTo(before);
    }

    @Test
    void aDamagedBaseOffsetOutsideTheCrcIsRefusedAsRecoverRefusesItNotRewritten() throws Exception {
        Path first;
        try (var files = Files.list(p0)) {
            first = files.filter(f -> f.toString().endsWith(".log"))
                    .sorted()
                    .findFirst()
                    .orElseThrow();
        }
        long second = LogFixture.sizeOf(scenario.segments.get(0).get(0));
        LogFixture.flipByte(first, second + 7); // the second batch's base offset: not covered by its CRC
        SortedMap<String, String> before = LogFixture.snapshot(data);

        CliRun recover = CliRun.run(new RecoverCommand(), "--dry-run", p0.toString());
        CliRun r = CliRun.run(new CompactCommand(), p0.toString());

        assertThat(recover.exit()).as(recover.toString()).isEqualTo(1);
        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).contains(first + ":").contains("damaged").contains("nothing was compacted");
        assertThat(LogFixture.snapshot(data)).isEqualTo(before);
    }

    @Test
    void usageAndDataErrors() {
        assertThat(CliRun.run(new CompactCommand()).exit()).isEqualTo(2);
        assertThat(CliRun.run(new CompactCommand(), "--min-compaction-lag-ms", "-1", p0.toString())
                        .exit())
                .isEqualTo(2);
        assertThat(CliRun.run(new CompactCommand(), data.resolve("nope").toString())
                        .exit())
                .isEqualTo(3);
        assertThat(CliRun.run(new CompactCommand(), "--help").out())
                .contains("--dry-run")
                .contains("Exit Codes:");
    }

    private static JsonNode json(String line) {
        try {
            return new ObjectMapper().readTree(line.strip());
        } catch (Exception e) {
            throw new AssertionError(line, e);
        }
    }

    private static long sizeOf(Path dir) {
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".log"))
                    .mapToLong(f -> f.toFile().length())
                    .sum();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
