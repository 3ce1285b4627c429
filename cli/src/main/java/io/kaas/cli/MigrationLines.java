package io.kaas.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;

/**
 * What {@code kaas import} and {@code kaas export} print, in one shape: progress per partition on stderr, and on
 * stdout one line (or, with {@code --json}, one JSON object) per partition, per group and for the summary.
 */
abstract class MigrationLines {
    private static final ObjectMapper JSON = new ObjectMapper();

    final PrintWriter out;
    final PrintWriter err;
    final boolean json;
    final boolean dryRun;

    MigrationLines(PrintWriter out, PrintWriter err, boolean json, boolean dryRun) {
        this.out = out;
        this.err = err;
        this.json = json;
        this.dryRun = dryRun;
    }

    /** The progress line of a partition about to be copied. */
    public void partitionStarted(String topicPartition, int index, int total, long bytes) {
        err.println("[" + (index + 1) + "/" + total + "] " + topicPartition + " (" + bytes + " bytes)");
        err.flush();
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
