package io.kaas.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordDeleterTest {
    @TempDir
    Path data;

    @Test
    void anOffsetBelowTheCurrentLogStartChangesNothing() throws Exception {
        Path p = LogFixture.partition(data, "t", 0, 2, 20);
        LogFixture.writeManifest(p, 1, 200, 80);

        RecordDeleter.Result r = RecordDeleter.delete(p, 50, false);

        assertThat(r.lowWatermark()).isEqualTo(80);
        assertThat(r.removed()).isEmpty();
        assertThat(StateJson.read(p.resolve(Manifest.FILE_NAME), Manifest.class))
                .contains(new Manifest(1, 200, 80));
    }

    @Test
    void anEmptyActiveSegmentIsTheLogEndAndIsKept() throws Exception {
        Path p = LogFixture.partition(data, "t", 0, 1, 20);
        LogFixture.writeSegment(p, SegmentName.of(1, 100), List.of(), 4096);

        RecordDeleter.Result r = RecordDeleter.delete(p, -1, false);

        assertThat(r.lowWatermark()).isEqualTo(100);
        assertThat(r.removed())
                .containsExactly(
                        p.resolve(SegmentName.of(1, 0).logFileName()),
                        p.resolve(SegmentName.of(1, 0).indexFileName()));
        assertThat(p.resolve(SegmentName.of(1, 100).logFileName())).exists();
    }

    @Test
    void apacheNamedPartitionWithoutManifestGetsOne() throws Exception {
        Path p = data.resolve("t-0");
        LogFixture.writeSegment(p, new SegmentName(-1, 0, true), LogFixture.plain(0, 4, 5), 4096);
        LogFixture.writeSegment(p, new SegmentName(-1, 20, true), LogFixture.plain(20, 4, 5), 4096);

        RecordDeleter.Result r = RecordDeleter.delete(p, 25, false);

        assertThat(r.lowWatermark()).isEqualTo(25);
        assertThat(r.highWatermark()).isEqualTo(40);
        assertThat(StateJson.read(p.resolve(Manifest.FILE_NAME), Manifest.class))
                .contains(new Manifest(0, 40, 25));
        assertThat(p.resolve(new SegmentName(-1, 0, true).logFileName())).doesNotExist();
    }

    @Test
    void pastTheHighWatermarkIsOutOfRange() {
        Path p = LogFixture.partition(data, "t", 0, 1, 2);
        assertThatThrownBy(() -> RecordDeleter.delete(p, 11, false))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.OFFSET_OUT_OF_RANGE))
                .hasMessageContaining("high watermark 10");
        assertThat(Files.exists(p.resolve(SegmentName.of(1, 0).logFileName()))).isTrue();
    }

    @Test
    void aPartitionTheRecoveryAnalysisRefusesIsRefusedWithItsDamageLinesAndNothingChanges() {
        Path p = LogFixture.partition(data, "t", 0, 2, 20);
        Path first = p.resolve(SegmentName.of(1, 0).logFileName());
        LogFixture.flipByte(
                first, LogFixture.concat(LogFixture.plain(0, 3, 5)).length + 70); // a bad CRC in a closed segment
        var before = LogFixture.snapshot(p);

        assertThatThrownBy(() -> RecordDeleter.delete(p, 150, false))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.DAMAGED))
                .hasMessageStartingWith(first + ":")
                .hasMessageContaining("nothing was deleted");
        assertThat(LogFixture.snapshot(p)).isEqualTo(before);
    }
}
