package io.kaas.inspect.data;

import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An Apache Kafka log dir's offset checkpoint files ({@code replication-offset-checkpoint}: high watermarks,
 * {@code log-start-offset-checkpoint}: log starts), in Apache's text format: a version line ({@code 0}), a count
 * line, then one {@code topic partition offset} line per partition.
 */
public record ApacheCheckpoints(Map<String, Long> highWatermarks, Map<String, Long> logStarts) {
    public static final String HIGH_WATERMARKS = "replication-offset-checkpoint";
    public static final String LOG_STARTS = "log-start-offset-checkpoint";
    public static final String PARTITION_METADATA = "partition.metadata";

    /** The checkpoints of the log dir {@code logDir}; empty maps for files it lacks. */
    public static ApacheCheckpoints read(Path logDir) {
        return new ApacheCheckpoints(parse(logDir.resolve(HIGH_WATERMARKS)), parse(logDir.resolve(LOG_STARTS)));
    }

    /** Key of a partition in the maps: {@code topic-partition}, as Apache names its directory. */
    public static String key(String topic, int partition) {
        return topic + "-" + partition;
    }

    static Map<String, Long> parse(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Map.of();
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + IoFailure.describe(e), e);
        }
        Map<String, Long> out = new HashMap<>();
        if (lines.size() < 2 || !lines.get(0).trim().equals("0")) {
            throw new StorageException(
                    StorageException.Kind.IO, file + ":0: not an Apache offset checkpoint (version line 0 expected)");
        }
        long byte0 = lines.get(0).length() + 1L + lines.get(1).length() + 1L;
        for (int i = 2; i < lines.size(); i++) {
            String line = lines.get(i);
            String[] f = line.trim().split(" ");
            if (line.isBlank()) {
                continue;
            }
            if (f.length != 3) {
                throw new StorageException(
                        StorageException.Kind.IO, file + ":" + byte0 + ": not a 'topic partition offset' line");
            }
            try {
                out.put(key(f[0], Integer.parseInt(f[1])), Long.parseLong(f[2]));
            } catch (NumberFormatException e) {
                throw new StorageException(
                        StorageException.Kind.IO, file + ":" + byte0 + ": not a 'topic partition offset' line", e);
            }
            byte0 += line.length() + 1L;
        }
        return out;
    }

    /** The topic id Apache's {@code partition.metadata} records ({@code topic_id: <base64>}), or null. */
    public static String topicId(Path partitionDir) {
        Path file = partitionDir.resolve(PARTITION_METADATA);
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.startsWith("topic_id:")) {
                    return line.substring("topic_id:".length()).trim();
                }
            }
            return null;
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + IoFailure.describe(e), e);
        }
    }
}
