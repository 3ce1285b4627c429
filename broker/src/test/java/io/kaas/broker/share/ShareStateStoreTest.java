package io.kaas.broker.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.format.ShareGroupStateFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The share state file as the store writes and reads it: runs of offsets, the same state back. */
class ShareStateStoreTest {
    private static SharePartition.StoredRun r(long offset, RecordState state, int count) {
        return r(offset, offset, state, count);
    }

    private static SharePartition.StoredRun r(long first, long last, RecordState state, int count) {
        return new SharePartition.StoredRun(first, last, state, count);
    }

    @Test
    void neighbouringRunsInOneStateAreOneEntry() {
        List<ShareGroupStateFile.Record> runs = ShareStateStore.runs(List.of(
                r(3, RecordState.ACKNOWLEDGED, 1),
                r(4, RecordState.ACKNOWLEDGED, 1),
                r(5, RecordState.ACQUIRED, 1),
                r(6, RecordState.ACQUIRED, 2),
                r(8, RecordState.ACQUIRED, 2)));
        assertThat(runs)
                .containsExactly(
                        new ShareGroupStateFile.Record(3, 4L, "ACKNOWLEDGED", 1),
                        new ShareGroupStateFile.Record(5, null, "ACQUIRED", 1),
                        new ShareGroupStateFile.Record(6, null, "ACQUIRED", 2),
                        new ShareGroupStateFile.Record(8, null, "ACQUIRED", 2));
    }

    @Test
    void whatIsSavedIsLoadedBackAfterARestart(@TempDir Path cluster) throws Exception {
        TopicIdPartition tp = new TopicIdPartition(Uuid.randomUuid(), 0, "t");
        List<SharePartition.StoredRun> records = List.of(
                r(10, 11, RecordState.ACKNOWLEDGED, 1), r(12, RecordState.ACQUIRED, 3), r(13, RecordState.ARCHIVED, 5));
        try (ShareStateStore store = new ShareStateStore(cluster)) {
            store.save("g", Map.of(tp, new SharePartition.Snapshot(10, 14, records)))
                    .get(30, TimeUnit.SECONDS);
        }
        assertThat(Files.readString(cluster.resolve("share_groups/g.json")))
                .contains("\"version\":2")
                .contains("{\"offset\":10,\"lastOffset\":11,\"state\":\"ACKNOWLEDGED\",\"deliveryCount\":1}");
        try (ShareStateStore store = new ShareStateStore(cluster)) {
            assertThat(store.load("g")).containsExactly(Map.entry(tp, new SharePartition.Snapshot(10, 14, records)));
        }
    }
}
