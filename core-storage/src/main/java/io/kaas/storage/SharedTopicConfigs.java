package io.kaas.storage;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.io.FileStamp;
import io.kaas.storage.io.StateFileLock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Topic configs ({@code <topic>/.config.json}) on a directory several brokers share: any broker answers
 * IncrementalAlterConfigs and AlterConfigs, and every broker holding one of the topic's partitions must
 * enforce the result (retention, compaction, {@code max.message.bytes}). A change is made to the file as
 * it is now, under its {@link StateFileLock}, so two brokers altering one topic at once keep both
 * changes; a broker notices a change made elsewhere by the file's {@link FileStamp} at its next topic
 * refresh. Alone, the engine's copy is the file's and neither is needed.
 */
final class SharedTopicConfigs {
    /** The stamp of each topic's config file as last read here. */
    private final Map<String, FileStamp> seen = new ConcurrentHashMap<>();

    /**
     * Changes the config in {@code topicDir} from what the file holds now, under its lock, and writes it
     * durably. {@code change} may throw (an invalid config): nothing is written then.
     */
    TopicConfig alter(Path topicDir, TopicConfig known, UnaryOperator<TopicConfig> change) {
        Path file = topicDir.resolve(TopicConfig.FILE_NAME);
        try (StateFileLock lock = StateFileLock.exclusive(file)) {
            TopicConfig now = StateJson.read(file, TopicConfig.class).orElse(known);
            TopicConfig next = change.apply(now);
            StateJson.write(file, next);
            remember(topicDir);
            return next;
        }
    }

    /** The config in {@code topicDir} when its file changed since it was last read here; empty otherwise. */
    Optional<TopicConfig> changedSinceRead(Path topicDir) {
        Path file = topicDir.resolve(TopicConfig.FILE_NAME);
        String topic = topicDir.getFileName().toString();
        Optional<FileStamp> stamp = stamp(file);
        if (stamp.isEmpty() || stamp.get().equals(seen.get(topic))) {
            return Optional.empty();
        }
        Optional<TopicConfig> read = StateJson.read(file, TopicConfig.class);
        seen.put(topic, stamp.get()); // after the read: a change in between is read again next time
        return read;
    }

    /** The file as it is now counts as read (after a create, a load or this broker's own change). */
    void remember(Path topicDir) {
        stamp(topicDir.resolve(TopicConfig.FILE_NAME))
                .ifPresent(s -> seen.put(topicDir.getFileName().toString(), s));
    }

    void forget(String topic) {
        seen.remove(topic);
    }

    private static Optional<FileStamp> stamp(Path file) {
        try {
            return FileStamp.of(file);
        } catch (IOException e) {
            return Optional.empty(); // unreadable now: the config in force stays, the next refresh looks again
        }
    }
}
