package io.kaas.storage;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.format.TopicConfigFile;
import io.kaas.storage.format.TopicIdentity;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.TopicDir;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.IntPredicate;

/**
 * The durable steps of a topic's life on disk, for {@link DiskStorageEngine}: create, read back, mark
 * deleted (several brokers over one directory), delete. Where each name goes is {@link TopicDir}'s; the
 * order of writes and fsyncs here is what makes each step survive a power cut whole or not at all.
 */
final class TopicFiles {
    private TopicFiles() {}

    /**
     * Creates {@code info}'s directory, its config and id files and its partition directories, every entry
     * fsynced. With {@code shared}, another broker over the same directory may create it at the same moment:
     * the mkdir decides, and the loser gets {@link FileAlreadyExistsException}. Only the partitions {@code inHome}
     * places in this dir get a directory here (another dir of the pool holds the others).
     */
    static void create(Path dataDir, TopicInfo info, boolean shared, IntPredicate inHome) throws IOException {
        Path dir = TopicDir.of(dataDir, info.name());
        if (shared) {
            Files.createDirectory(dir);
            // Its entry in the data directory, durably: createDirectories below finds it there and syncs nothing,
            // and a power cut would take the topic back with every record acknowledged in it.
            AtomicFile.fsyncDirectory(dataDir);
        }
        AtomicFile.createDirectories(dir);
        // Both files fsynced, then renamed, then one fsync of the directory for the renames and the partition
        // directories together: creating ten thousand topics is bound by fsyncs, and each of them waits for one.
        Path config = dir.resolve(TopicConfig.FILE_NAME);
        Path identity = dir.resolve(TopicIdentity.FILE_NAME);
        Path configTmp = AtomicFile.writeTemporary(config, StateJson.toBytes(info.config()));
        Path identityTmp = AtomicFile.writeTemporary(identity, StateJson.toBytes(new TopicIdentity(info.topicId())));
        AtomicFile.replace(configTmp, config);
        AtomicFile.replace(identityTmp, identity);
        for (int p = 0; p < info.partitions(); p++) {
            if (inHome.test(p)) {
                Files.createDirectory(TopicDir.partition(dir, p));
            }
        }
        AtomicFile.fsyncDirectory(dir);
    }

    /**
     * The topic directories under {@code dataDir} (not {@code __cluster}, not hidden). Alone, a delete a crash
     * interrupted (a {@code .deleting} directory) is finished first. Shared, that is the deleting broker's to
     * finish, and a topic marked deleted is left out: being deleted by another broker, never opened again.
     */
    static List<Path> list(Path dataDir, boolean shared) throws IOException {
        List<Path> topics = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dataDir, Files::isDirectory)) {
            for (Path d : ds) {
                String name = d.getFileName().toString();
                if (TopicDir.isDeleting(name) && !shared) {
                    TopicDir.deleteRecursively(d);
                } else if (TopicDir.isTopic(name) && !(shared && TopicDir.isMarkedDeleted(d))) {
                    topics.add(d);
                }
            }
        }
        return topics;
    }

    /**
     * The topic in {@code dir} as its files say. A directory without its id file is a topic another broker
     * is creating when {@code shared} (empty: look again later); alone, a topic from before ids, which gets
     * one now.
     */
    static Optional<TopicInfo> read(Path dir, boolean shared) throws IOException {
        String name = dir.getFileName().toString();
        UUID id = StateJson.read(dir.resolve(TopicIdentity.FILE_NAME), TopicIdentity.class)
                .map(TopicIdentity::topicId)
                .orElse(null);
        if (id == null && shared) {
            return Optional.empty();
        }
        if (id == null) {
            id = UUID.randomUUID();
            StateJson.write(dir.resolve(TopicIdentity.FILE_NAME), new TopicIdentity(id));
        }
        TopicConfig cfg;
        try {
            cfg = TopicConfigFile.readTopicDir(dir).orElse(TopicConfig.EMPTY);
        } catch (StorageException e) {
            if (e.kind() != StorageException.Kind.DAMAGED) {
                throw e;
            }
            // The topic stays known but offline: each partition's open refuses it, naming the file (RecoveryScan).
            cfg = TopicConfig.EMPTY;
        }
        return Optional.of(new TopicInfo(name, id, TopicDir.partitionCount(dir), cfg));
    }

    /** Marks the topic deleted for every broker over the directory, durably before anything is closed: after a crash all still see it so. */
    static void markDeleted(Path topicDir) throws IOException {
        Path marker = topicDir.resolve(TopicDir.DELETED_MARKER);
        if (!Files.exists(marker)) {
            Files.createFile(marker);
        }
        AtomicFile.fsyncDirectory(topicDir);
    }

    /** Renames the topic away first (one atomic, durable step), then deletes at leisure: a crash never leaves half a topic. */
    static void delete(Path dataDir, TopicInfo info) throws IOException {
        Path doomed = TopicDir.deleting(dataDir, info.name(), info.topicId());
        Files.move(TopicDir.of(dataDir, info.name()), doomed, StandardCopyOption.ATOMIC_MOVE);
        AtomicFile.fsyncDirectory(dataDir);
        TopicDir.deleteRecursively(doomed);
    }
}
