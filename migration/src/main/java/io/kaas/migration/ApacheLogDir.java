package io.kaas.migration;

import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * An Apache Kafka log dir: {@code <logdir>/<topic>-<n>/} partitions beside {@code meta.properties} and the
 * broker's {@code .lock}. Internal topics ({@code __consumer_offsets}, {@code __transaction_state},
 * {@code __cluster_metadata}) are read for their state and never imported as topics; directories Apache is
 * deleting or moving ({@code -delete}, {@code -future}, {@code -stray}) are skipped.
 */
public record ApacheLogDir(Path root, List<ApachePartition> partitions) {
    private static final String LOCK = ".lock";

    /** One {@code <topic>-<n>} directory. */
    public record ApachePartition(String topic, int partition, Path dir) {
        public String name() {
            return ApacheNames.partitionDir(topic, partition);
        }

        public boolean internal() {
            return topic.equals(ApacheNames.CONSUMER_OFFSETS)
                    || topic.equals(ApacheNames.TRANSACTION_STATE)
                    || topic.equals(ApacheNames.CLUSTER_METADATA);
        }
    }

    public ApacheLogDir {
        partitions = List.copyOf(partitions);
    }

    /**
     * Reads the layout of {@code root}.
     *
     * @throws StorageException (IO) when it is not an Apache log dir; (LOCKED) when its broker holds {@code .lock}
     */
    public static ApacheLogDir open(Path root) {
        if (!Files.isDirectory(root)) {
            throw new StorageException(StorageException.Kind.IO, root + ": no such directory");
        }
        if (!Files.isRegularFile(root.resolve("meta.properties"))) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    root + ": not an Apache Kafka log dir (no meta.properties; was it ever formatted?)");
        }
        refuseWhenLocked(root);
        List<ApachePartition> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(root, Files::isDirectory)) {
            for (Path d : ds) {
                parse(d).ifPresent(out::add);
            }
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, root + ": cannot list: " + e.getMessage(), e);
        }
        out.sort(Comparator.comparing(ApachePartition::topic).thenComparingInt(ApachePartition::partition));
        return new ApacheLogDir(root, out);
    }

    static Optional<ApachePartition> parse(Path dir) {
        return ApacheNames.parsePartitionDir(dir.getFileName().toString())
                .map(n -> new ApachePartition(n.topic(), n.partition(), dir));
    }

    /** The topics to import: every partition but the internal topics'. */
    public List<ApachePartition> userPartitions() {
        return partitions.stream().filter(p -> !p.internal()).toList();
    }

    /** The partitions of one internal topic. */
    public List<ApachePartition> partitionsOf(String topic) {
        return partitions.stream().filter(p -> p.topic().equals(topic)).toList();
    }

    /**
     * Apache's broker holds an exclusive lock on {@code <logdir>/.lock} while it runs. Probed with a shared lock on a
     * read-only channel, so nothing is written or created in Apache's directory.
     */
    private static void refuseWhenLocked(Path root) {
        Path lock = root.resolve(LOCK);
        if (!Files.isRegularFile(lock)) {
            return;
        }
        try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.READ)) {
            FileLock probe = ch.tryLock(0, Long.MAX_VALUE, true);
            if (probe == null) {
                throw running(lock);
            }
            probe.release();
        } catch (OverlappingFileLockException e) {
            throw running(lock);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, lock + ": cannot probe: " + e.getMessage(), e);
        }
    }

    private static StorageException running(Path lock) {
        return new StorageException(
                StorageException.Kind.LOCKED,
                lock + ": held by a running Apache Kafka broker; stop it before importing its log dir");
    }
}
