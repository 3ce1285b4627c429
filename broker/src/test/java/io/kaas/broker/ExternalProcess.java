package io.kaas.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command (kcat, node, or an Apache tool's main class in a child JVM) with a timeout; output goes to files. */
record ExternalProcess(int exitCode, String out, String err) {

    static ExternalProcess run(Path workDir, String stdin, List<String> command)
            throws IOException, InterruptedException {
        return run(workDir, stdin, command, Map.of());
    }

    /** As {@link #run(Path, String, List)}, with {@code environment} added to this JVM's. */
    static ExternalProcess run(Path workDir, String stdin, List<String> command, Map<String, String> environment)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile(workDir, "out", ".txt");
        Path err = Files.createTempFile(workDir, "err", ".txt");
        Path in = Files.createTempFile(workDir, "in", ".txt");
        Files.writeString(in, stdin == null ? "" : stdin);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        Process p = builder.redirectInput(in.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new IllegalStateException("timed out: " + command + "\nstdout: " + Files.readString(out)
                    + "\nstderr: " + Files.readString(err));
        }
        return new ExternalProcess(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /** {@code java -cp <this test classpath> mainClass args...}: an Apache tool exactly as its shell script runs it. */
    static ExternalProcess java(Path workDir, String stdin, String mainClass, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        cmd.addAll(List.of(args));
        return run(workDir, stdin, cmd);
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
}
