package io.kaas.storage.layout;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A topic's directory {@code <dir>/<topic>/} as found in one dir of a {@link LogDirs} pool. {@link #in} is the one
 * listing of a pool's topic directories that {@link PoolContents} (where partitions live) and {@link PartitionMove}
 * (finishing interrupted moves) both read: dirs in pool order, topics by name, only legal topic names
 * ({@link TopicDir#isTopic}: never {@code __cluster}, a hidden one, or one being deleted); a dir that is not there
 * holds none.
 *
 * @param dir the log dir it is in
 * @param topic the topic's name, the directory's
 * @param path {@code <dir>/<topic>}
 */
record FoundTopicDir(LogDir dir, String topic, Path path) {

    static List<FoundTopicDir> in(LogDirs pool) throws IOException {
        List<FoundTopicDir> out = new ArrayList<>();
        for (LogDir dir : pool.dirs()) {
            if (!Files.isDirectory(dir.path())) {
                continue;
            }
            for (Path topicDir : subdirectories(dir.path())) {
                String topic = topicDir.getFileName().toString();
                if (TopicDir.isTopic(topic)) {
                    out.add(new FoundTopicDir(dir, topic, topicDir));
                }
            }
        }
        return out;
    }

    /** The directories directly under the topic's, by name: its partitions, and any move's copies. */
    List<Path> children() throws IOException {
        return subdirectories(path);
    }

    private static List<Path> subdirectories(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, Files::isDirectory)) {
            ds.forEach(out::add);
        }
        out.sort(null);
        return out;
    }
}
