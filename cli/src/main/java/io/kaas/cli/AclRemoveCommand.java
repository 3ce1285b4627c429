package io.kaas.cli;

import io.kaas.security.AclStore;
import io.kaas.storage.ExitCodes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.server.authorizer.AclDeleteResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code kaas acl remove}: every ACL the options match (options left out match anything). */
@Command(
        name = "remove",
        header = "Remove the ACLs matching the options from a stopped broker's data directory.",
        description = {
            "Options left out match anything, so --principal User:bob alone removes all of bob's ACLs; "
                    + "with no option at all the command refuses (usage error) unless --all says to remove every ACL. "
                    + "A running broker stops enforcing them within about a second, as if removed with kafka-acls --remove."
        },
        exitCodeList = {"0:Removed what matched.", "1:Nothing matched.", "3:The file cannot be read or written."})
final class AclRemoveCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    JsonOutputMixin json;

    @Mixin
    AclResourceOptions acl;

    @Option(names = "--all", description = "Remove every ACL (required when no other option narrows what is removed).")
    boolean all;

    @Override
    public Integer call() {
        if (acl.narrowsNothing() && !all) {
            throw new ParameterException(
                    spec.commandLine(),
                    "no option narrows what to remove: this would remove every ACL;"
                            + " give --principal, --topic, --group, --transactional-id, --cluster, --host, --operation or --deny, or --all");
        }
        if (all && !acl.narrowsNothing()) {
            throw new ParameterException(spec.commandLine(), "--all removes every ACL: it takes no other option");
        }
        List<AclDeleteResult> results;
        results = AclStore.inDataDir(dataDir.existingDataDir())
                .delete(acl.filters(spec))
                .results();
        List<AclBinding> removed = new ArrayList<>();
        for (AclDeleteResult r : results) {
            if (r.exception().isPresent()) {
                throw AclFailure.of(spec, r.exception().get());
            }
            r.aclBindingDeleteResults().forEach(d -> removed.add(d.aclBinding()));
        }
        AclListCommand.print(spec, json.json(), removed, "removed ");
        if (removed.isEmpty()) {
            spec.commandLine().getErr().println("kaas acl remove: no ACL matched");
            return ExitCodes.PROBLEMS;
        }
        return ExitCodes.OK;
    }
}
