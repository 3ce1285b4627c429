package io.kaas.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code kaas user}: SCRAM users of a data dir, offline (the broker's AlterUserScramCredentials edits the same file). */
@Command(
        name = "user",
        header = "Add, list and delete SASL/SCRAM users in a data directory.",
        description = {
            "Users live in <data>/__cluster/credentials.json as salted, iterated SCRAM credentials (RFC 5802); "
                    + "no password is stored. A running broker sees changes at the next authentication. "
                    + "PLAIN logins are checked against the same credentials.",
            "Online, kafka-configs --entity-type users --alter --add-config 'SCRAM-SHA-512=[password=...]' "
                    + "edits the same users."
        },
        synopsisSubcommandLabel = "COMMAND",
        subcommands = {
            UserAddCommand.class,
            UserDeleteCommand.class,
            UserListCommand.class,
        })
final class UserCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required command (add, list or delete)");
    }
}
