package io.kaas.cli;

import io.kaas.security.AclStore;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.format.StateJson;
import java.util.Collection;
import java.util.concurrent.Callable;
import org.apache.kafka.common.acl.AclBinding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code kaas acl list}: every ACL of a data dir (read-only, so allowed while the broker runs). */
@Command(
        name = "list",
        header = "List the ACLs of a data directory.",
        description =
                "One line per ACL: RESOURCE_TYPE<TAB>PATTERN_TYPE<TAB>NAME<TAB>PRINCIPAL<TAB>HOST<TAB>OPERATION<TAB>PERMISSION.",
        exitCodeList = {"0:Listed (possibly none)."})
final class AclListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    JsonOutputMixin json;

    @Override
    public Integer call() {
        print(spec, json.json(), AclStore.inDataDir(dataDir.existingDataDir()).bindings(), "");
        return ExitCodes.OK;
    }

    static void print(CommandSpec spec, boolean asJson, Collection<AclBinding> bindings, String prefix) {
        if (asJson) {
            // JSON Lines: one object per ACL, then the summary
            for (AclBinding b : bindings) {
                spec.commandLine()
                        .getOut()
                        .println(StateJson.mapper()
                                .createObjectNode()
                                .put("type", "acl")
                                .put("resourceType", b.pattern().resourceType().name())
                                .put("patternType", b.pattern().patternType().name())
                                .put("name", b.pattern().name())
                                .put("principal", b.entry().principal())
                                .put("host", b.entry().host())
                                .put("operation", b.entry().operation().name())
                                .put("permission", b.entry().permissionType().name()));
            }
            spec.commandLine()
                    .getOut()
                    .println(StateJson.mapper()
                            .createObjectNode()
                            .put("type", "summary")
                            .put(prefix.isEmpty() ? "acls" : prefix.strip(), bindings.size()));
            return;
        }
        for (AclBinding b : bindings) {
            spec.commandLine()
                    .getOut()
                    .println(prefix
                            + String.join(
                                    "\t",
                                    b.pattern().resourceType().name(),
                                    b.pattern().patternType().name(),
                                    b.pattern().name(),
                                    b.entry().principal(),
                                    b.entry().host(),
                                    b.entry().operation().name(),
                                    b.entry().permissionType().name()));
        }
    }
}
