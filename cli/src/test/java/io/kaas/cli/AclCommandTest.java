package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.security.AclStore;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.layout.OwnerLock;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kaas acl add/list/remove} through the real command tree, which a running broker's lock does not refuse. */
class AclCommandTest {
    @TempDir
    Path dir;

    @Test
    void addListRemoveRoundTripInAclsJson() {
        String data = dir.toString();
        KaasRun add = KaasRun.of(
                "acl",
                "add",
                "--data-dir",
                data,
                "--principal",
                "User:alice",
                "--operation",
                "write,describe",
                "--topic",
                "orders-",
                "--pattern-type",
                "prefixed");
        assertThat(add.exitCode()).as(add.err()).isZero();
        assertThat(add.out()).contains("added TOPIC\tPREFIXED\torders-\tUser:alice\t*\tWRITE\tALLOW");
        assertThat(KaasRun.of(
                                "acl",
                                "add",
                                "--data-dir",
                                data,
                                "--principal",
                                "User:bob",
                                "--operation",
                                "READ",
                                "--group",
                                "g",
                                "--deny",
                                "--host",
                                "10.0.0.1")
                        .exitCode())
                .isZero();
        assertThat(AclStore.inDataDir(dir).bindings())
                .hasSize(3)
                .anyMatch(b -> b.entry().operation() == AclOperation.DESCRIBE
                        && b.pattern().name().equals("orders-"));

        KaasRun list = KaasRun.of("acl", "list", "--data-dir", data);
        assertThat(list.out().lines()).hasSize(3).contains("GROUP\tLITERAL\tg\tUser:bob\t10.0.0.1\tREAD\tDENY");
        assertThat(KaasRun.of("acl", "list", "--data-dir", data, "--json").out())
                .contains("\"principal\":\"User:alice\"");

        KaasRun remove = KaasRun.of("acl", "remove", "--data-dir", data, "--principal", "User:alice");
        assertThat(remove.exitCode()).as(remove.err()).isZero();
        assertThat(remove.out().lines()).hasSize(2);
        assertThat(KaasRun.of("acl", "list", "--data-dir", data).out().lines())
                .containsExactly("GROUP\tLITERAL\tg\tUser:bob\t10.0.0.1\tREAD\tDENY");
        assertThat(KaasRun.of("acl", "remove", "--data-dir", data, "--principal", "User:alice")
                        .exitCode())
                .isEqualTo(ExitCodes.PROBLEMS);
    }

    @Test
    void badAclsAreUsageErrorsAsApacheRefusesThem() {
        String data = dir.toString();
        assertThat(KaasRun.of(
                                "acl",
                                "add",
                                "--data-dir",
                                data,
                                "--principal",
                                "alice",
                                "--operation",
                                "READ",
                                "--topic",
                                "t")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(KaasRun.of(
                                "acl",
                                "add",
                                "--data-dir",
                                data,
                                "--principal",
                                "User:a",
                                "--operation",
                                "FLY",
                                "--topic",
                                "t")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(KaasRun.of("acl", "add", "--data-dir", data, "--principal", "User:a", "--operation", "READ")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(AclStore.inDataDir(dir).bindings()).isEmpty();
    }

    @Test
    void aRunningBrokersLockDoesNotRefuseChangesAsKaasUserDoesNot() {
        // The running broker re-reads acls.json (AccessControl), as it re-reads credentials.json for kaas user.
        String data = dir.toString();
        try (OwnerLock broker = OwnerLock.acquireDataDir(dir)) {
            KaasRun add = KaasRun.of(
                    "acl", "add", "--data-dir", data, "--principal", "User:a", "--operation", "READ", "--topic", "t");
            assertThat(add.exitCode()).as(add.err()).isZero();
            assertThat(KaasRun.of("acl", "list", "--data-dir", data).out().lines())
                    .containsExactly("TOPIC\tLITERAL\tt\tUser:a\t*\tREAD\tALLOW");
            assertThat(KaasRun.of("acl", "remove", "--data-dir", data, "--principal", "User:a")
                            .exitCode())
                    .isZero();
        }
        assertThat(AclStore.inDataDir(dir).bindings()).isEmpty();
    }

    @Test
    void removeWithNoFilterRefusesUnlessAll() {
        String data = dir.toString();
        assertThat(KaasRun.of(
                                "acl",
                                "add",
                                "--data-dir",
                                data,
                                "--principal",
                                "User:a",
                                "--operation",
                                "READ",
                                "--topic",
                                "t")
                        .exitCode())
                .isZero();
        assertThat(KaasRun.of(
                                "acl",
                                "add",
                                "--data-dir",
                                data,
                                "--principal",
                                "User:b",
                                "--operation",
                                "READ",
                                "--group",
                                "g")
                        .exitCode())
                .isZero();

        KaasRun refused = KaasRun.of("acl", "remove", "--data-dir", data);
        assertThat(refused.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(refused.err()).contains("--all");
        assertThat(refused.out()).isEmpty();
        assertThat(KaasRun.of("acl", "remove", "--data-dir", data, "--pattern-type", "any")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(KaasRun.of("acl", "remove", "--data-dir", data, "--all", "--topic", "t")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(AclStore.inDataDir(dir).bindings()).hasSize(2);

        KaasRun all = KaasRun.of("acl", "remove", "--data-dir", data, "--all");
        assertThat(all.exitCode()).as(all.err()).isZero();
        assertThat(all.out().lines()).hasSize(2);
        assertThat(AclStore.inDataDir(dir).bindings()).isEmpty();
    }

    @Test
    void aMissingDataDirIsNamedAndNeverCreated() {
        Path missing = dir.resolve("nonexistent/dd");
        for (String[] args : List.of(
                new String[] {"add", "--principal", "User:a", "--operation", "READ", "--topic", "t"},
                new String[] {"list"},
                new String[] {"remove", "--all"})) {
            List<String> argv = new java.util.ArrayList<>(List.of("acl"));
            argv.addAll(List.of(args));
            argv.addAll(List.of("--data-dir", missing.toString()));
            KaasRun r = KaasRun.of(argv.toArray(String[]::new));
            assertThat(r.exitCode()).as(argv + ": " + r.err()).isEqualTo(ExitCodes.UNREADABLE);
            assertThat(r.err()).contains(missing + ": no such data directory");
        }
        assertThat(dir.resolve("nonexistent")).doesNotExist();
    }

    @Test
    void acls_jsonThatCannotBeWrittenIsADataErrorWithItsCauseNotAUsageError() throws Exception {
        // a file where __cluster/ should be: a failure root cannot bypass, unlike EACCES
        java.nio.file.Files.writeString(dir.resolve("__cluster"), "not a directory");
        KaasRun add = KaasRun.of(
                "acl",
                "add",
                "--data-dir",
                dir.toString(),
                "--principal",
                "User:a",
                "--operation",
                "READ",
                "--topic",
                "t");
        assertThat(add.exitCode()).as(add.err()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(add.err())
                .contains(dir.resolve("__cluster") + " (already exists)"); // createDirectories: a file is in the way
        KaasRun remove = KaasRun.of("acl", "remove", "--data-dir", dir.toString(), "--all");
        assertThat(remove.exitCode()).as(remove.err()).isEqualTo(ExitCodes.UNREADABLE);
        assertThat(remove.err()).contains("already exists");
    }
}
