package io.kaas.bench;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name bench/run.sh gives the captured stdout of one load-tool process:
 * {@code <scenario>.<system>.r<round>.<role><index>.out}, e.g. {@code durable.apache.r2.producer3.out}.
 * Warm-up runs are named {@code .w.} instead of {@code .r<round>.} and are not reported.
 */
public record RunFile(Path path, String scenario, String system, int round, Role role) {

    public enum Role { PRODUCER, CONSUMER }

    private static final Pattern NAME = Pattern.compile("^([a-z0-9-]+)\\.([a-z]+)\\.r(\\d+)\\.(producer|consumer)\\d+\\.out$");

    /** The broker-CPU record run.sh writes beside a measured round's outputs: {@code <scenario>.<system>.r<round>.cpu}. */
    public String cpuFileName() {
        return scenario + "." + system + ".r" + round + ".cpu";
    }

    public static Optional<RunFile> of(Path path) {
        Matcher m = NAME.matcher(path.getFileName().toString());
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new RunFile(path, m.group(1), m.group(2), Integer.parseInt(m.group(3)),
                m.group(4).equals("producer") ? Role.PRODUCER : Role.CONSUMER));
    }
}
