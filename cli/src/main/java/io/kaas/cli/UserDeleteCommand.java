package io.kaas.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.format.StateJson;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas user delete NAME}: removes a user's SCRAM credentials (all, or the mechanisms named). */
@Command(
        name = "delete",
        header = "Delete a SCRAM user, or some of its mechanisms.",
        description =
                "Without --mechanism every credential of NAME is removed. Connections already authenticated stay open.",
        exitCodeList = {"0:Deleted.", "1:NAME had no credential for a mechanism asked for (the others were deleted)."})
final class UserDeleteCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    JsonOutputMixin json;

    @Parameters(paramLabel = "NAME", description = "User name.")
    String name;

    @Option(
            names = "--mechanism",
            paramLabel = "MECHANISM",
            split = ",",
            description =
                    "SCRAM-SHA-256 or SCRAM-SHA-512; repeat or separate with commas (default: every mechanism the user has).")
    List<String> mechanisms;

    @Override
    public Integer call() {
        ScramCredentialStore store = ScramCredentialStore.inDataDir(dataDir.existingDataDir());
        List<ScramMechanism> asked =
                mechanisms == null || mechanisms.isEmpty() ? null : UserMechanisms.parse(spec, mechanisms);
        List<ScramMechanism> targets = new ArrayList<>();
        if (asked != null) {
            targets.addAll(asked);
        } else {
            store.describe()
                    .getOrDefault(name, new java.util.TreeMap<>())
                    .keySet()
                    .forEach(m -> targets.add(ScramMechanism.forMechanismName(m)));
        }
        List<String> deleted = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (ScramMechanism m : targets) {
            (store.delete(name, m) ? deleted : missing).add(m.mechanismName());
        }
        boolean problem = !missing.isEmpty() || targets.isEmpty();
        if (json.json()) {
            ObjectNode out = StateJson.mapper().createObjectNode().put("user", name);
            ArrayNode d = out.putArray("deleted");
            deleted.forEach(d::add);
            ArrayNode m = out.putArray("missing");
            missing.forEach(m::add);
            spec.commandLine().getOut().println(out);
        } else {
            deleted.forEach(m -> spec.commandLine().getOut().println("deleted User:" + name + " " + m));
        }
        if (targets.isEmpty()) {
            spec.commandLine().getErr().println("kaas user delete: no user " + name);
        }
        missing.forEach(m ->
                spec.commandLine().getErr().println("kaas user delete: User:" + name + " has no " + m + " credential"));
        return problem ? ExitCodes.PROBLEMS : ExitCodes.OK;
    }
}
