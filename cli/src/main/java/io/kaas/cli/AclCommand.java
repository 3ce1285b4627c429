package io.kaas.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code kaas acl}: the ACLs of a data dir, offline (the broker's CreateAcls/DeleteAcls edit the same file). */
@Command(
        name = "acl",
        header = "List, add and remove ACLs in a data directory.",
        description = {
            "ACLs live in <data>/__cluster/acls.json, rewritten atomically; a broker with "
                    + "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer enforces them "
                    + "with Apache's own authorizer. Works with the broker stopped or running, as kaas user does for "
                    + "credentials: a running broker (every broker of a shared directory) applies a change within about "
                    + "a second. A change made here at the same moment as one through kafka-acls: the last write wins.",
            "Example: kaas acl add --principal User:alice --operation WRITE,DESCRIBE --topic orders- --pattern-type PREFIXED"
        },
        synopsisSubcommandLabel = "COMMAND",
        subcommands = {
            AclAddCommand.class,
            AclListCommand.class,
            AclRemoveCommand.class,
        })
final class AclCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required command (add, list or remove)");
    }
}
