package io.kaas.cli;

import io.kaas.security.AclStore;
import io.kaas.storage.ExitCodes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.server.authorizer.AclCreateResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code kaas acl add}: one ACL per operation, validated as the broker's CreateAcls validates them. */
@Command(
        name = "add",
        header = "Add ACLs (one per --operation) to a data directory.",
        description = "A running broker enforces them within about a second, as if added with kafka-acls --add.",
        exitCodeList = {"0:Added (or already there).", "3:The file cannot be read or written."})
final class AclAddCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    JsonOutputMixin json;

    @Mixin
    AclResourceOptions acl;

    @Override
    public Integer call() {
        ResourcePatternFilter f = acl.pattern(spec, false);
        if (acl.principal == null) {
            throw new ParameterException(spec.commandLine(), "--principal is required");
        }
        ResourcePattern pattern = new ResourcePattern(f.resourceType(), f.name(), f.patternType());
        List<AclBinding> bindings = new ArrayList<>();
        for (AclOperation op : acl.operations(spec)) {
            bindings.add(new AclBinding(
                    pattern,
                    new AccessControlEntry(
                            acl.principal,
                            acl.host == null ? "*" : acl.host,
                            op,
                            acl.deny ? AclPermissionType.DENY : AclPermissionType.ALLOW)));
        }
        List<AclCreateResult> results;
        results = AclStore.inDataDir(dataDir.existingDataDir()).create(bindings).results();
        for (int i = 0; i < bindings.size(); i++) {
            if (results.get(i).exception().isPresent()) {
                throw AclFailure.of(spec, results.get(i).exception().get());
            }
        }
        AclListCommand.print(spec, json.json(), bindings, "added ");
        return ExitCodes.OK;
    }
}
