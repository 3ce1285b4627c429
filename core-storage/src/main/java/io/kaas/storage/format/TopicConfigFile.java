package io.kaas.storage.format;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reading a topic's {@code <topic>/.config.json} ({@link TopicConfig}) and the rules that make it damage: a file
 * that does not parse, a field no version of the file has, a value the engine cannot apply. Damage is never
 * guessed around: a topic's cleanup policy is not derivable from its log, and a compacted topic read as
 * delete-policy would lose keys to retention, so every tool refuses the topic's partitions instead.
 * (Writing goes through {@link StateJson}, like every state file.)
 *
 * <p>Stateless; any thread (each call reads the file afresh).
 */
public final class TopicConfigFile {
    private TopicConfigFile() {}

    /**
     * The config of the topic a partition directory belongs to ({@code ../.config.json}); EMPTY when there is none.
     *
     * @throws StorageException DAMAGED when the file is damaged ({@link #readTopicDir}), IO when it cannot be read
     */
    public static TopicConfig ofPartitionDir(Path partitionDir) {
        Path topicDir = partitionDir.toAbsolutePath().getParent();
        return topicDir == null ? TopicConfig.EMPTY : readTopicDir(topicDir).orElse(TopicConfig.EMPTY);
    }

    /**
     * The topic's {@code .config.json}; empty when there is none (an Apache log dir, an older data dir: the
     * defaults apply). A file that does not parse, or holds values the engine cannot apply, is damage to the
     * topic (see the class comment).
     *
     * @throws StorageException DAMAGED with {@code FILE:0: what}; IO when the file cannot be read
     */
    public static Optional<TopicConfig> readTopicDir(Path topicDir) {
        Path file = topicDir.resolve(TopicConfig.FILE_NAME);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + IoFailure.describe(e), e);
        }
        TopicConfig config;
        try {
            config = StateJson.fromBytes(bytes, TopicConfig.class);
        } catch (IOException | RuntimeException e) {
            throw damaged(file, "not a valid topic config (" + firstLine(e.getMessage()) + ")");
        }
        if (config == null) {
            throw damaged(file, "not a valid topic config (no value)");
        }
        Optional<String> unknown = unknownField(bytes);
        if (unknown.isPresent()) {
            // no version of the file has other fields: a damaged name (a flipped bit in "cleanupPolicy") would
            // otherwise read as unset, turning a compacted topic into a delete-policy one
            throw damaged(file, "unknown field \"" + unknown.get() + "\"");
        }
        List<String> problems = problems(config);
        if (!problems.isEmpty()) {
            throw damaged(file, String.join("; ", problems));
        }
        return Optional.of(config);
    }

    /** The damage line of the topic's {@code .config.json} ({@code FILE:0: what}, see {@link #readTopicDir}), or empty. */
    public static Optional<String> damageOf(Path topicDir) {
        try {
            readTopicDir(topicDir);
            return Optional.empty();
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.DAMAGED) {
                return Optional.of(e.getMessage());
            }
            throw e;
        }
    }

    /**
     * What in {@code config} (as read from a file) the engine could not apply: a cleanup.policy outside
     * Apache's values, or a number-valued config that does not parse. Empty when it is sound.
     */
    static List<String> problems(TopicConfig config) {
        List<String> out = new ArrayList<>();
        if (config.cleanupPolicy() != null) {
            try {
                TopicConfig.EMPTY.withKafkaConfig("cleanup.policy", config.cleanupPolicy());
            } catch (IllegalArgumentException e) {
                out.add(e.getMessage());
            }
        }
        List<Supplier<Object>> parsed = List.of(
                config::minCleanableDirtyRatio,
                config::maxCompactionLagMs,
                config::timestampBeforeMaxMs,
                config::timestampAfterMaxMs);
        List<String> names = List.of(
                "min.cleanable.dirty.ratio",
                "max.compaction.lag.ms",
                "message.timestamp.before.max.ms",
                "message.timestamp.after.max.ms");
        for (int i = 0; i < parsed.size(); i++) {
            try {
                // Parsed only to see whether it parses: the value is read where it is used.
                var unused = parsed.get(i).get();
            } catch (NumberFormatException e) {
                out.add("config " + names.get(i) + " needs a number, got '"
                        + config.otherConfigs().get(names.get(i)) + "'");
            }
        }
        return out;
    }

    private static StorageException damaged(Path file, String what) {
        return new StorageException(
                StorageException.Kind.DAMAGED,
                file + ":0: " + what
                        + "; the topic's cleanup policy is unknown, so its partitions stay untouched: restore or fix the file"
                        + " (without it the defaults apply, cleanup.policy=delete); recover --force does not change it");
    }

    private static Optional<String> unknownField(byte[] json) {
        Set<String> known = new HashSet<>();
        for (RecordComponent c : TopicConfig.class.getRecordComponents()) {
            known.add(c.getName());
        }
        // The top-level keys in file order, streamed: no jackson-databind on kaas verify's path (StateJson).
        try (JsonParser parser = new JsonFactory().createParser(json)) {
            parser.nextToken();
            for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
                if (!known.contains(name)) {
                    return Optional.of(name);
                }
                parser.nextToken();
                parser.skipChildren();
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("?"); // parsed as a config just before: not reached
        }
    }

    private static String firstLine(String message) {
        return message == null ? "unparseable" : message.lines().findFirst().orElse(message);
    }
}
