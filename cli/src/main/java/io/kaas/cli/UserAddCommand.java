package io.kaas.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kaas.security.ScramCredentialStore;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.format.StateJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kaas user add NAME --password-stdin}: adds or replaces a user's SCRAM credentials. */
@Command(
        name = "add",
        header = "Add a SCRAM user, or replace its password.",
        description = {
            "Reads the password from the first line of stdin (never from the command line, where ps and shell "
                    + "history would show it), derives a random salt and the RFC 5802 keys, and writes them "
                    + "atomically to <data>/__cluster/credentials.json.",
            "Example: printf '%%s\\n' \"$PASSWORD\" | kaas user add alice --mechanism SCRAM-SHA-512 --password-stdin"
        },
        exitCodeList = {"0:The user was added or its password replaced."})
final class UserAddCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DataDirMixin dataDir;

    @Mixin
    JsonOutputMixin json;

    @Parameters(paramLabel = "NAME", description = "User name (the principal is User:NAME).")
    String name;

    @Option(
            names = "--mechanism",
            paramLabel = "MECHANISM",
            split = ",",
            description = "SCRAM-SHA-256 or SCRAM-SHA-512; repeat or separate with commas for both (default: both).")
    List<String> mechanisms;

    @Option(
            names = "--iterations",
            paramLabel = "N",
            defaultValue = "4096",
            description = "PBKDF2 iterations, 4096..16384 (default 4096, Apache's).")
    int iterations;

    @Option(
            names = "--password-stdin",
            required = true,
            description =
                    "Read the password from the first line of stdin (required: passwords never go on the command line).")
    boolean passwordStdin;

    @Override
    public Integer call() throws IOException {
        if (name.isEmpty() || name.codePoints().anyMatch(Character::isISOControl)) {
            throw new ParameterException(spec.commandLine(), "NAME must be non-empty and without control characters");
        }
        List<ScramMechanism> chosen = UserMechanisms.parse(spec, mechanisms);
        String password = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        if (password == null || password.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "no password on stdin (give it as the first line)");
        }
        ScramCredentialStore store = ScramCredentialStore.inDataDir(dataDir.existingDataDir());
        for (ScramMechanism m : chosen) {
            try {
                store.upsert(name, m, ScramCredentialStore.generate(m, password, iterations));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        if (json.json()) {
            ObjectNode out = StateJson.mapper().createObjectNode().put("user", name);
            ArrayNode list = out.putArray("mechanisms");
            chosen.forEach(
                    m -> list.addObject().put("mechanism", m.mechanismName()).put("iterations", iterations));
            spec.commandLine().getOut().println(out);
        } else {
            for (ScramMechanism m : chosen) {
                spec.commandLine()
                        .getOut()
                        .println("added User:" + name + " " + m.mechanismName() + " (" + iterations + " iterations)");
            }
        }
        return ExitCodes.OK;
    }
}
