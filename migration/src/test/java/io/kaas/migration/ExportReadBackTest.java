package io.kaas.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.GroupOffsetsFile.Committed;
import io.kaas.storage.format.GroupOffsetsFile.GroupOffsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What export writes in Apache's formats, read back by import's readers (Apache's serdes both ways): the KRaft
 * bootstrap Apache's Formatter writes holds the topics, ids, configs and producer-id floor; the
 * {@code __consumer_offsets} partitions hold each group's offsets in the partition Apache's coordinator looks in.
 */
class ExportReadBackTest {
    @TempDir
    Path dir;

    @Test
    void bootstrapRecordsReadBackAsTheTopics() {
        UUID orders = UUID.randomUUID();
        KraftBootstrap.Formatted f = KraftBootstrap.format(
                dir,
                Uuid.randomUuid().toString(),
                1,
                "CONTROLLER",
                "localhost:9093",
                List.of(
                        new KraftBootstrap.Topic("orders", orders, 3, Map.of("retention.ms", "-1"), 4),
                        new KraftBootstrap.Topic("empty", UUID.randomUUID(), 1, Map.of(), 0)),
                4242);
        assertThat(dir.resolve(ApacheNames.META_PROPERTIES)).exists();
        ClusterMetadata read =
                ClusterMetadata.read(dir.resolve(ApacheNames.partitionDir(ApacheNames.CLUSTER_METADATA, 0)));
        assertThat(read.topics()).containsOnlyKeys("orders", "empty");
        assertThat(read.topic("orders").orElseThrow())
                .isEqualTo(new ClusterMetadata.Topic("orders", orders, 3, Map.of("retention.ms", "-1")));
        assertThat(read.nextProducerId()).isEqualTo(4242);
        assertThat(f.directoryId()).isNotEqualTo(Uuid.ZERO_UUID);
    }

    @Test
    void groupOffsetsReadBackFromTheirApachePartition() throws Exception {
        List<GroupOffsets> groups = List.of(
                new GroupOffsets(
                        "g1",
                        List.of(
                                new Committed("orders", 0, 123, -1, "m0", 1_700_000_000_000L),
                                new Committed("orders", 1, 250, 3, "", 1_700_000_000_001L)),
                        List.of()),
                new GroupOffsets("g2", List.of(new Committed("orders", 2, 7, -1, "x", 1_700_000_000_002L)), List.of()),
                new GroupOffsets("none", List.of(), List.of()));
        Map<Integer, List<GroupOffsets>> byPartition = ConsumerOffsetsLog.byPartition(groups, 50);
        assertThat(byPartition.values().stream().mapToInt(List::size).sum()).isEqualTo(2);
        ConsumerOffsetsLog.Written w =
                ConsumerOffsetsLog.write(dir, UUID.randomUUID(), byPartition, Map.of("orders", UUID.randomUUID()));
        assertThat(w.offsets()).isEqualTo(3);
        Path g1 = dir.resolve(
                ApacheNames.partitionDir(ApacheNames.CONSUMER_OFFSETS, ApacheNames.offsetsPartitionFor("g1", 50)));
        assertThat(Files.list(g1).map(p -> p.getFileName().toString()))
                .contains("00000000000000000000.log", "partition.metadata", "leader-epoch-checkpoint");

        List<Path> dirs;
        try (var s = Files.list(dir)) {
            dirs = s.filter(Files::isDirectory).toList();
        }
        CommittedGroupOffsets read = CommittedGroupOffsets.read(dirs);
        assertThat(read.byGroup()).containsOnlyKeys("g1", "g2");
        assertThat(read.byGroup().get("g1"))
                .containsExactlyElementsOf(groups.get(0).offsets());
        assertThat(read.byGroup().get("g2"))
                .containsExactlyElementsOf(groups.get(1).offsets());
    }

    @Test
    void apacheNamesBothWays() {
        assertThat(ApacheNames.segmentFile(1234)).isEqualTo("00000000000000001234.log");
        assertThat(ApacheNames.isSegmentFile(ApacheNames.segmentFile(1234))).isTrue();
        assertThat(ApacheNames.baseOffsetOf(Path.of(ApacheNames.segmentFile(1234))))
                .isEqualTo(1234);
        assertThat(ApacheNames.parsePartitionDir(ApacheNames.partitionDir("my-topic", 12)))
                .contains(new ApacheNames.PartitionDirName("my-topic", 12));
        assertThat(ApacheNames.parsePartitionDir("my-topic-3.abc-delete")).isEmpty();
        // Apache's partitionFor is Utils.abs(hashCode) % partitions, where Utils.abs(Integer.MIN_VALUE) is 0, not
        // Math.abs's negative: this string's hash is Integer.MIN_VALUE.
        assertThat("polygenelubricants".hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(ApacheNames.offsetsPartitionFor("polygenelubricants", 50)).isZero();
        assertThat(ApacheNames.offsetsPartitionFor("g1", 50)).isEqualTo(Math.abs("g1".hashCode()) % 50);
    }
}
