package io.kaas.storage.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogDirsTest {
    @Test
    void theListFormNamesEachDirByItsPathAndTheFirstIsHome() {
        LogDirs pool = LogDirs.parse(" /a , /b,/c ");
        assertThat(pool.dirs()).extracting(LogDir::path).containsExactly(Path.of("/a"), Path.of("/b"), Path.of("/c"));
        assertThat(pool.home().name()).isEqualTo("/a");
        assertThat(pool.dirs())
                .allMatch(d -> d.eligible() && !d.cordoned() && d.labels().isEmpty());
    }

    @Test
    void theJsonFormCarriesNamesEligibilityCordonsAndLabels() {
        LogDirs pool = LogDirs.parse("[{\"name\":\"fast\",\"path\":\"/a\",\"labels\":{\"disk\":\"nvme\"}},"
                + "{\"name\":\"bulk\",\"path\":\"/b\",\"eligible\":false},{\"path\":\"/c\",\"cordoned\":true}]");
        assertThat(pool.dirs())
                .containsExactly(
                        new LogDir("fast", Path.of("/a"), true, false, Map.of("disk", "nvme")),
                        new LogDir("bulk", Path.of("/b"), false, false, Map.of()),
                        new LogDir("/c", Path.of("/c"), true, true, Map.of()));
        assertThat(pool.pinned("bulk, fast")).containsExactly("bulk", "fast");
        assertThatThrownBy(() -> pool.pinned("slow"))
                .hasMessageContaining("slow")
                .hasMessageContaining("fast,bulk,/c");
    }

    @Test
    void badPoolsAreRefusedInWords() {
        assertThatThrownBy(() -> LogDirs.parse("/a,/a/b")).hasMessageContaining("overlap");
        assertThatThrownBy(() -> LogDirs.parse("[{\"name\":\"x\",\"path\":\"/a\"},{\"name\":\"x\",\"path\":\"/b\"}]"))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> LogDirs.parse("[{\"name\":\"x\"}]")).hasMessageContaining("\"path\"");
        assertThatThrownBy(() -> LogDirs.parse("[{\"path\":\"/a\",\"size\":1}]"))
                .hasMessageContaining("JSON");
        assertThatThrownBy(() -> LogDirs.parse(" , ")).hasMessageContaining("at least one");
    }

    @Test
    void placementSkipsCordonedAndIneligibleDirsAndBreaksTiesByOrder() {
        LogDirs pool =
                LogDirs.parse("[{\"name\":\"a\",\"path\":\"/a\",\"cordoned\":true},{\"name\":\"b\",\"path\":\"/b\"},"
                        + "{\"name\":\"c\",\"path\":\"/c\"},{\"name\":\"d\",\"path\":\"/d\",\"eligible\":false}]");
        Map<String, Long> partitions = Map.of("a", 0L, "b", 3L, "c", 3L, "d", 0L);
        Map<String, Long> bytes = Map.of("a", 0L, "b", 900L, "c", 100L, "d", 0L);
        assertThat(PlacementRule.PARTITIONS
                        .choose(pool, List.of(), d -> partitions.get(d.name()), d -> bytes.get(d.name()))
                        .name())
                .isEqualTo("b");
        assertThat(PlacementRule.BYTES
                        .choose(pool, List.of(), d -> partitions.get(d.name()), d -> bytes.get(d.name()))
                        .name())
                .isEqualTo("c");
        assertThat(PlacementRule.PARTITIONS
                        .choose(pool, List.of("d", "b"), d -> partitions.get(d.name()), d -> 0L)
                        .name())
                .isEqualTo("d");
        assertThatThrownBy(() -> PlacementRule.BYTES.choose(pool, List.of("a"), d -> 0L, d -> 0L))
                .hasMessageContaining("cordoned");
        assertThat(PlacementRule.parse(" Bytes ")).isEqualTo(PlacementRule.BYTES);
        assertThatThrownBy(() -> PlacementRule.parse("random")).hasMessageContaining("partitions or bytes");
    }
}
