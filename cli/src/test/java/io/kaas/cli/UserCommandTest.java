package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.layout.ClusterDir;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kaas user add/list/delete} through the real command tree. */
class UserCommandTest {
    @TempDir
    Path dir;

    private KaasRun withStdin(String stdin, String... args) {
        InputStream original = System.in;
        System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        try {
            return KaasRun.of(args);
        } finally {
            System.setIn(original);
        }
    }

    @Test
    void addListDeleteRoundTripWithoutEverStoringThePassword() throws Exception {
        String data = dir.toString();
        KaasRun add = withStdin(
                "S3cret-pass\n",
                "user",
                "add",
                "alice",
                "--data-dir",
                data,
                "--mechanism",
                "SCRAM-SHA-512",
                "--password-stdin");
        assertThat(add.exitCode()).as(add.err()).isZero();
        assertThat(add.out()).isEqualTo("added User:alice SCRAM-SHA-512 (4096 iterations)\n");
        KaasRun both = withStdin(
                "other\n",
                "user",
                "add",
                "bob",
                "--data-dir",
                data,
                "--password-stdin",
                "--iterations",
                "8192",
                "--json");
        assertThat(both.out()).contains("\"user\":\"bob\"", "SCRAM-SHA-256", "SCRAM-SHA-512", "8192");

        Path file = ClusterDir.credentials(ClusterDir.of(dir));
        assertThat(Files.readString(file))
                .doesNotContain("S3cret-pass", "other")
                .contains("storedKey", "serverKey", "salt");
        assertThat(ScramCredentialStore.inDataDir(dir).lookup("alice", ScramMechanism.SCRAM_SHA_512))
                .isPresent();

        KaasRun list = KaasRun.of("user", "list", "--data-dir", data);
        assertThat(list.out()).isEqualTo("alice\tSCRAM-SHA-512:4096\nbob\tSCRAM-SHA-256:8192,SCRAM-SHA-512:8192\n");
        assertThat(KaasRun.of("user", "list", "--data-dir", data, "--json").out())
                .contains(
                        "{\"user\":\"alice\",\"mechanisms\":[{\"mechanism\":\"SCRAM-SHA-512\",\"iterations\":4096}]}");

        KaasRun partial = KaasRun.of("user", "delete", "bob", "--data-dir", data, "--mechanism", "SCRAM-SHA-256");
        assertThat(partial.exitCode()).isZero();
        assertThat(KaasRun.of("user", "list", "--data-dir", data).out()).contains("bob\tSCRAM-SHA-512:8192\n");
        KaasRun missing = KaasRun.of("user", "delete", "alice", "--data-dir", data, "--mechanism", "SCRAM-SHA-256");
        assertThat(missing.exitCode()).isEqualTo(ExitCodes.PROBLEMS);
        assertThat(missing.err()).contains("has no SCRAM-SHA-256");
        assertThat(KaasRun.of("user", "delete", "alice", "--data-dir", data).exitCode())
                .isZero();
        assertThat(KaasRun.of("user", "delete", "nobody", "--data-dir", data).exitCode())
                .isEqualTo(ExitCodes.PROBLEMS);
        assertThat(KaasRun.of("user", "list", "--data-dir", data).out()).isEqualTo("bob\tSCRAM-SHA-512:8192\n");
    }

    @Test
    void usageErrors() {
        String data = dir.toString();
        assertThat(KaasRun.of("user").exitCode()).isEqualTo(ExitCodes.USAGE);
        KaasRun noStdinFlag = KaasRun.of("user", "add", "alice", "--data-dir", data);
        assertThat(noStdinFlag.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(noStdinFlag.err()).contains("--password-stdin");
        assertThat(withStdin("", "user", "add", "alice", "--data-dir", data, "--password-stdin")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
        KaasRun badMechanism = withStdin(
                "pw\n", "user", "add", "alice", "--data-dir", data, "--password-stdin", "--mechanism", "PLAIN");
        assertThat(badMechanism.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(badMechanism.err()).contains("SCRAM-SHA-256 or SCRAM-SHA-512");
        KaasRun fewIterations = withStdin(
                "pw\n", "user", "add", "alice", "--data-dir", data, "--password-stdin", "--iterations", "100");
        assertThat(fewIterations.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(fewIterations.err()).contains("4096..16384");
        assertThat(Files.exists(ClusterDir.credentials(ClusterDir.of(dir)))).isFalse();
    }

    @Test
    void unreadableCredentialsFileIsExitThreeNamingIt() throws Exception {
        Path file = ClusterDir.credentials(ClusterDir.of(dir));
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{not json");
        KaasRun list = KaasRun.of("user", "list", "--data-dir", dir.toString());
        assertThat(list.exitCode()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(list.err()).contains("credentials.json");
    }

    @Test
    void aMissingDataDirIsNamedAndNeverCreated() {
        Path missing = dir.resolve("nonexistent/dd");
        KaasRun add = withStdin("pw\n", "user", "add", "alice", "--data-dir", missing.toString(), "--password-stdin");
        assertThat(add.exitCode()).as(add.err()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(add.err()).contains(missing + ": no such data directory");
        assertThat(KaasRun.of("user", "list", "--data-dir", missing.toString()).exitCode())
                .isEqualTo(ExitCodes.UNREADABLE);
        assertThat(KaasRun.of("user", "delete", "alice", "--data-dir", missing.toString())
                        .exitCode())
                .isEqualTo(ExitCodes.UNREADABLE);
        assertThat(dir.resolve("nonexistent")).doesNotExist();
    }

    @Test
    void credentialsThatCannotBeWrittenAreADataErrorWithItsCause() throws Exception {
        Files.writeString(
                dir.resolve("__cluster"), "not a directory"); // a file in the way: root cannot bypass it, unlike EACCES
        KaasRun add = withStdin("pw\n", "user", "add", "alice", "--data-dir", dir.toString(), "--password-stdin");
        assertThat(add.exitCode()).as(add.err()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(add.err())
                .contains(dir.resolve("__cluster") + " (already exists)"); // createDirectories: a file is in the way
    }
}
