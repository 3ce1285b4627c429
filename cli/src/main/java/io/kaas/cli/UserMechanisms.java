package io.kaas.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** {@code --mechanism} of the user commands: SCRAM-SHA-256/512 names, none given meaning both. */
final class UserMechanisms {
    private UserMechanisms() {}

    static List<ScramMechanism> parse(CommandSpec spec, List<String> names) {
        if (names == null || names.isEmpty()) {
            return List.of(ScramMechanism.values());
        }
        List<ScramMechanism> out = new ArrayList<>();
        for (String n : names) {
            ScramMechanism m = ScramMechanism.forMechanismName(n.trim().toUpperCase(Locale.ROOT));
            if (m == null) {
                throw new ParameterException(
                        spec.commandLine(), "--mechanism must be SCRAM-SHA-256 or SCRAM-SHA-512, got '" + n + "'");
            }
            if (!out.contains(m)) {
                out.add(m);
            }
        }
        return out;
    }
}
