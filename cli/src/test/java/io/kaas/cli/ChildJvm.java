package io.kaas.cli;

import java.io.File;
import java.util.Arrays;
import java.util.stream.Collectors;

/** What a test needs to run {@code io.kaas.cli.Kaas} in a child JVM as bin/kaas would run it. */
public final class ChildJvm {
    private ChildJvm() {}

    /**
     * The test classpath without slf4j-simple (which the parent pom gives every module's tests): kaas
     * logs through logback only, and two SLF4J providers would make the child warn and pick one.
     */
    public static String classpath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("slf4j-simple"))
                .collect(Collectors.joining(File.pathSeparator));
    }
}
