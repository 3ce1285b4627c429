package io.kaas.recovery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What to delete: one offset per partition, from flags or from a file in kafka-delete-records' format
 * {@code {"partitions":[{"topic":"t","partition":0,"offset":10}],"version":1}}. Offset -1 means the
 * high watermark.
 */
public record DeleteRecordsRequest(List<Target> targets) {
    public record Target(String topic, int partition, long offset) {
        public String label() {
            return topic + "-" + partition;
        }
    }

    public DeleteRecordsRequest {
        targets = List.copyOf(targets);
    }

    /** Thrown for a file that is not in the expected format; the message names the file and what is wrong. */
    public static final class FormatException extends Exception {
        public FormatException(String message) {
            super(message);
        }
    }

    public static DeleteRecordsRequest parse(Path file) throws IOException, FormatException {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(file.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new FormatException(file + ": not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.path("partitions").isArray()) {
            throw new FormatException(
                    file + ": expected {\"partitions\":[{\"topic\":..,\"partition\":..,\"offset\":..}],\"version\":1}");
        }
        if (root.has("version") && root.get("version").asInt() != 1) {
            throw new FormatException(file + ": unsupported version " + root.get("version") + " (1 is known)");
        }
        List<Target> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int i = 0;
        for (JsonNode p : root.get("partitions")) {
            if (!p.path("topic").isTextual()
                    || !p.path("partition").canConvertToInt()
                    || !p.path("partition").isIntegralNumber()
                    || !p.path("offset").isIntegralNumber()) {
                throw new FormatException(file + ": partitions[" + i
                        + "] needs a string \"topic\", an integer \"partition\" and an integer \"offset\"");
            }
            Target t = new Target(
                    p.get("topic").asText(),
                    p.get("partition").asInt(),
                    p.get("offset").asLong());
            if (!seen.add(t.label())) {
                throw new FormatException(file + ": duplicate partition " + t.label());
            }
            out.add(t);
            i++;
        }
        if (out.isEmpty()) {
            throw new FormatException(file + ": no partitions listed");
        }
        return new DeleteRecordsRequest(out);
    }
}
