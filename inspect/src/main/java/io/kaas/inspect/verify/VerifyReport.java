package io.kaas.inspect.verify;

import io.kaas.storage.ExitCodes;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What {@code verify} found. Problems are corruption or inconsistency (exit 1); unreadable entries
 * are files or directories that could not be read at all (exit 3). Problems are also streamed to a
 * listener as they are found, so a long scan prints as it goes.
 */
public final class VerifyReport {
    private final List<Problem> problems = new ArrayList<>();
    private final List<String> unreadable = new ArrayList<>();
    private final Consumer<Problem> listener;
    private int partitions;
    private int segments;
    private long batches;
    private long bytes;

    public VerifyReport(Consumer<Problem> listener) {
        this.listener = listener;
    }

    void problem(Problem p) {
        problems.add(p);
        listener.accept(p);
    }

    void problem(java.nio.file.Path file, long position, String message) {
        problem(new Problem(file, position, message));
    }

    void unreadable(String line) {
        unreadable.add(line);
    }

    void countPartition() {
        partitions++;
    }

    void countSegment(long batchCount, long byteCount) {
        segments++;
        batches += batchCount;
        bytes += byteCount;
    }

    public List<Problem> problems() {
        return List.copyOf(problems);
    }

    public List<String> unreadable() {
        return List.copyOf(unreadable);
    }

    public int partitions() {
        return partitions;
    }

    public int segments() {
        return segments;
    }

    public long batches() {
        return batches;
    }

    public long bytes() {
        return bytes;
    }

    /** OK clean, PROBLEMS found, UNREADABLE when something could not be read. */
    public int exitCode() {
        if (!unreadable.isEmpty()) {
            return ExitCodes.UNREADABLE;
        }
        return problems.isEmpty() ? ExitCodes.OK : ExitCodes.PROBLEMS;
    }

    /** One problem as a JSON Lines object: {"type":"problem","file":..,"position":..,"message":..}. */
    public static String toJson(Problem p) {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("type", "problem");
        m.put("file", p.file().toString());
        m.put("position", p.position());
        m.put("message", p.message());
        return write(m);
    }

    /** The last JSON Lines object: counts, the exit code and what could not be read ({"type":"summary",...}). */
    public String summaryJson() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("type", "summary");
        m.put("ok", exitCode() == 0);
        m.put("exitCode", exitCode());
        m.put("partitions", partitions);
        m.put("segments", segments);
        m.put("batches", batches);
        m.put("bytes", bytes);
        m.put("problems", problems.size());
        m.put("unreadable", unreadable);
        return write(m);
    }

    private static String write(Object value) {
        try {
            return Json.MAPPER.writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Built at the first --json line only: plain verify output loads no jackson-databind (LeanLauncherIT). */
    private static final class Json {
        static final com.fasterxml.jackson.databind.ObjectMapper MAPPER =
                new com.fasterxml.jackson.databind.ObjectMapper();
    }

    public String summary() {
        return "verified " + partitions + " partition(s), " + segments + " segment(s), " + batches + " batch(es), "
                + bytes + " bytes: " + problems.size() + " problem(s)"
                + (unreadable.isEmpty() ? "" : ", " + unreadable.size() + " unreadable");
    }
}
