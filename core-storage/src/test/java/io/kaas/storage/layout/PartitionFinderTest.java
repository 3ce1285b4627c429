package io.kaas.storage.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionFinderTest {
    @TempDir
    Path data;

    @Test
    void findsKaasAndApacheLayoutsAtAnyLevelAndSkipsTheClusterDir() throws Exception {
        Path a0 = LogFixture.partition(data, "a", 0, 1, 1);
        Path a1 = LogFixture.partition(data, "a", 1, 1, 1);
        Path apache = data.resolve("b-0");
        LogFixture.writeSegment(apache, new SegmentName(-1, 0, true), LogFixture.plain(0, 1, 1), 4096);
        Files.createDirectories(data.resolve("__cluster/txn_state"));
        LogFixture.writeManifest(Files.createDirectories(data.resolve("__cluster/x")), 0, 0, 0);

        assertThat(PartitionFinder.find(data)).containsExactly(a0, a1, apache);
        assertThat(PartitionFinder.find(data.resolve("a"))).containsExactly(a0, a1);
        assertThat(PartitionFinder.find(a1)).containsExactly(a1);
    }

    @Test
    void missingPathAndFileAreErrorsNamingThePath() throws Exception {
        assertThatThrownBy(() -> PartitionFinder.find(data.resolve("nope")))
                .isInstanceOf(StorageException.class)
                .hasMessage(data.resolve("nope") + ": no such file or directory");
        Path file = Files.writeString(data.resolve("f"), "x");
        assertThatThrownBy(() -> PartitionFinder.find(file)).hasMessage(file + ": not a directory");
    }

    @Test
    void aPathWithNoKaasOrKafkaDataIsAnErrorSayingSo() throws Exception {
        Path empty = Files.createDirectory(data.resolve("empty"));
        assertThatThrownBy(() -> PartitionFinder.find(empty))
                .isInstanceOf(StorageException.class)
                .hasMessage(empty + ": no kaas or Kafka partition data found");
        Path etcLike = Files.createDirectories(data.resolve("etc/ssl/certs"));
        Files.writeString(etcLike.resolve("ca.pem"), "x");
        assertThatThrownBy(() -> PartitionFinder.find(data.resolve("etc")))
                .hasMessageEndingWith(": " + PartitionFinder.NO_DATA);
    }

    @Test
    void aKaasDataDirOrTopicOrKafkaLogDirWithoutPartitionsYetIsEmptyNotAnError() throws Exception {
        Path kaas = Files.createDirectories(data.resolve("kaas/__cluster"));
        assertThat(PartitionFinder.find(kaas.getParent())).isEqualTo(List.of());
        Path topic = Files.createDirectories(data.resolve("kaas/t"));
        Files.writeString(topic.resolve(".config.json"), "{}");
        assertThat(PartitionFinder.find(topic)).isEqualTo(List.of());
        Path apache = Files.createDirectories(data.resolve("kafka-logs"));
        Files.writeString(apache.resolve("meta.properties"), "version=1\n");
        assertThat(PartitionFinder.find(apache)).isEqualTo(List.of());
    }

    @Test
    void onePartitionByTopicAndIndexInEitherLayout() throws Exception {
        Path kaas = LogFixture.partition(data, "a", 0, 1, 1);
        Path apache = Files.createDirectories(data.resolve("b-3"));
        assertThat(PartitionFinder.find(data, "a", 0)).contains(kaas);
        assertThat(PartitionFinder.find(data, "b", 3)).contains(apache);
        assertThat(PartitionFinder.find(data, "a", 1)).isEmpty();
    }
}
