package io.kaas.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.format.StateJson;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code kaas user list}: users with their mechanisms and iteration counts (never salts or keys). */
@Command(
        name = "list",
        header = "List SCRAM users: name, mechanisms and iterations.",
        description = "One line per user: NAME<TAB>MECHANISM:ITERATIONS[,...]. Salts and keys are never shown.",
        exitCodeList = {"0:Listed (possibly no user)."})
final class UserListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    JsonOutputMixin json;

    @Override
    public Integer call() {
        SortedMap<String, SortedMap<String, Integer>> users =
                ScramCredentialStore.inDataDir(dataDir.existingDataDir()).describe();
        if (json.json()) {
            // JSON Lines: one object per user, then the summary
            users.forEach((user, mechs) -> {
                ObjectNode u = StateJson.mapper().createObjectNode().put("user", user);
                ArrayNode list = u.putArray("mechanisms");
                mechs.forEach((m, it) -> list.addObject().put("mechanism", m).put("iterations", it));
                spec.commandLine().getOut().println(u);
            });
            spec.commandLine()
                    .getOut()
                    .println(StateJson.mapper()
                            .createObjectNode()
                            .put("type", "summary")
                            .put("users", users.size()));
        } else {
            users.forEach((user, mechs) -> spec.commandLine()
                    .getOut()
                    .println(user + "\t"
                            + mechs.entrySet().stream()
                                    .map((Map.Entry<String, Integer> e) -> e.getKey() + ":" + e.getValue())
                                    .collect(Collectors.joining(","))));
        }
        return ExitCodes.OK;
    }
}
