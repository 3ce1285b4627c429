package io.kaas.inspect.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.ExitCodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kaas verify} over a data dir's share group state files, and over one such file given as PATH. */
class ShareStateCheckTest {
    private static final String GOOD = "{\"version\":1,\"groupId\":\"g\",\"partitions\":[{\"topicId\":"
            + "\"AAAAAAAAAAAAAAAAAAAAAQ\",\"topic\":\"t\",\"partition\":0,\"startOffset\":3,\"endOffset\":6,"
            + "\"records\":[{\"offset\":3,\"state\":\"AVAILABLE\",\"deliveryCount\":1},"
            + "{\"offset\":4,\"state\":\"ACKNOWLEDGED\",\"deliveryCount\":1}]}]}";

    /** Version 2: runs of offsets. */
    private static final String GOOD_RUNS = "{\"version\":2,\"groupId\":\"runs\",\"partitions\":[{\"topicId\":"
            + "\"AAAAAAAAAAAAAAAAAAAAAQ\",\"topic\":\"t\",\"partition\":0,\"startOffset\":3,\"endOffset\":9,"
            + "\"records\":[{\"offset\":3,\"lastOffset\":5,\"state\":\"AVAILABLE\",\"deliveryCount\":1},"
            + "{\"offset\":6,\"state\":\"ARCHIVED\",\"deliveryCount\":0},"
            + "{\"offset\":7,\"lastOffset\":8,\"state\":\"ACKNOWLEDGED\",\"deliveryCount\":2}]}]}";

    private static List<Problem> verify(Path path) {
        List<Problem> problems = new ArrayList<>();
        VerifyReport report = new Verifier(new VerifyReport(problems::add)).verify(path, n -> {});
        assertThat(report.unreadable()).isEmpty();
        return problems;
    }

    @Test
    void aStateTheBrokerCanLoadIsClean(@TempDir Path data) throws Exception {
        Path dir = Files.createDirectories(data.resolve("__cluster/share_groups"));
        Files.writeString(dir.resolve("g.json"), GOOD);
        Files.writeString(dir.resolve("runs.json"), GOOD_RUNS);
        // A crash between the write and the rename: the broker never reads it.
        Files.writeString(dir.resolve("g.json.tmp"), "{\"vers");
        assertThat(verify(data)).isEmpty();
        assertThat(verify(dir.resolve("g.json"))).isEmpty();
    }

    @Test
    void unloadableStatesAreProblemsNamingTheFile(@TempDir Path data) throws Exception {
        Path dir = Files.createDirectories(data.resolve("__cluster/share_groups"));
        Files.writeString(dir.resolve("torn.json"), GOOD.substring(0, 40));
        Files.writeString(dir.resolve("other.json"), GOOD);
        Files.writeString(
                dir.resolve("g.json"),
                GOOD.replace("\"offset\":4,\"state\":\"ACKNOWLEDGED\"", "\"offset\":2,\"state\":\"LOST\""));
        Files.writeString(dir.resolve("runs.json"), GOOD_RUNS.replace("\"lastOffset\":8", "\"lastOffset\":9"));
        List<Problem> problems = verify(data);
        assertThat(problems)
                .extracting(p -> p.file().getFileName().toString())
                .containsOnly("torn.json", "other.json", "g.json", "runs.json");
        assertThat(problems)
                .extracting(Problem::toString)
                .anySatisfy(l -> assertThat(l).contains("torn.json:0: share group state the broker cannot read"))
                .anySatisfy(l ->
                        assertThat(l).contains("other.json:0: share group state: groupId g in the file of group other"))
                .anySatisfy(l -> assertThat(l).contains("t-0: offset 2 after 3 (not increasing)"))
                .anySatisfy(l -> assertThat(l).contains("t-0: offset 2 has unknown state LOST"))
                .anySatisfy(l ->
                        assertThat(l).contains("runs.json:0: share group state: t-0: offsets 7 to 9 outside [3, 9)"));
        VerifyReport report = new VerifyReport(p -> {});
        new Verifier(report).verify(dir.resolve("g.json"), n -> {});
        assertThat(report.exitCode()).isEqualTo(ExitCodes.PROBLEMS);
    }
}
