package io.kaas.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.kaas.storage.format.LeaderEpochCheckpoint;
import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.ProducerStateSnapshot;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.format.ShareGroupStateFile;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TxnIndexSnapshot;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Pretty-prints the partition's JSON state files and share groups' state files
 * ({@code __cluster/share_groups/<group>.json}). Each is parsed as its core-storage record first,
 * so a file the broker could not read is reported as such rather than printed.
 */
final class StateFileDumper {
    private static final ObjectMapper PRETTY =
            JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    private static final Map<String, Class<?>> TYPES = Map.of(
            Manifest.FILE_NAME, Manifest.class,
            RecoveryCheckpoint.FILE_NAME, RecoveryCheckpoint.class,
            ProducerStateSnapshot.FILE_NAME, ProducerStateSnapshot.class,
            TxnIndexSnapshot.FILE_NAME, TxnIndexSnapshot.class,
            LeaderEpochCheckpoint.FILE_NAME, LeaderEpochCheckpoint.class,
            LogStart.FILE_NAME, LogStart.class);

    private StateFileDumper() {}

    static boolean handles(Path file) {
        return TYPES.containsKey(file.getFileName().toString()) || isShareState(file);
    }

    /** {@code __cluster/share_groups/<group>.json}: a share group's state (known by where it lies). */
    private static boolean isShareState(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        return dir != null
                && dir.getFileName() != null
                && dir.getFileName().toString().equals(ClusterDir.SHARE_GROUPS)
                && file.getFileName().toString().endsWith(".json");
    }

    /** Prints the file; in JSON mode one compact object {"type":"state","file":..,"content":..}. */
    static void dump(Path file, boolean json, PrintWriter out) throws IOException {
        Class<?> type = isShareState(file)
                ? ShareGroupStateFile.Group.class
                : TYPES.get(file.getFileName().toString());
        byte[] bytes = Files.readAllBytes(file);
        Object value;
        try {
            value = StateJson.fromBytes(bytes, type);
        } catch (IOException e) {
            throw new IOException(
                    file + ": not a valid " + type.getSimpleName() + ": "
                            + e.getMessage().lines().findFirst().orElse(""),
                    e);
        }
        JsonNode tree = StateJson.mapper().valueToTree(value);
        if (json) {
            var node = PRETTY.createObjectNode();
            node.put("type", "state");
            node.put("file", file.toString());
            node.set("content", tree);
            out.println(
                    PRETTY.writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(node));
        } else {
            out.println(PRETTY.writeValueAsString(tree));
        }
    }
}
