package io.kaas.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.layout.PartitionSegments;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryScan;
import io.kaas.storage.segment.IndexPolicy;
import io.kaas.storage.segment.SegmentName;
import io.kaas.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexRebuilderTest {
    @TempDir
    Path data;

    @Test
    void writesTheSameBytesAsTheBrokersRecoveryScan() throws Exception {
        for (int interval : new int[] {0, 100, 333, 4096}) {
            Path p = LogFixture.partition(data, "t" + interval, 0, 2, 60);
            SegmentFile active = PartitionSegments.list(p).get(1);
            Files.delete(active.index());
            RecoveryScan.run(
                    p,
                    new RecoveryOptions(
                            false, RecoveryOptions.DamagePolicy.REFUSE, new IndexPolicy(interval), false, 1, true));
            byte[] broker = Files.readAllBytes(active.index());

            Files.delete(active.index());
            IndexRebuilder.Result r = new IndexRebuilder(new IndexPolicy(interval)).rebuild(active, true);

            assertThat(r.written()).isTrue();
            assertThat(Files.readAllBytes(active.index()))
                    .as("interval " + interval)
                    .isEqualTo(broker);
            assertThat(new IndexRebuilder(new IndexPolicy(interval))
                            .rebuild(active, false)
                            .changed())
                    .isFalse();
        }
    }

    @Test
    void reportsTheFirstDifferingEntry() throws Exception {
        Path p = LogFixture.partition(data, "t", 0, 1, 30);
        SegmentFile s =
                SegmentFile.of(p.resolve(SegmentName.of(1, 0).logFileName())).orElseThrow();
        byte[] bytes = Files.readAllBytes(s.index());
        bytes[13] ^= 1; // position of entry 1
        Files.write(s.index(), bytes);

        IndexRebuilder.Result r = new IndexRebuilder(new IndexPolicy(256)).rebuild(s, false);

        assertThat(r.changed()).isTrue();
        assertThat(r.written()).isFalse();
        assertThat(r.difference()).contains("first difference at entry 1 (byte 8)");
        assertThat(Files.readAllBytes(s.index())).isEqualTo(bytes);
    }
}
