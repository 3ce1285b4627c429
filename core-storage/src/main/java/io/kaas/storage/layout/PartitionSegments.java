package io.kaas.storage.layout;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Lists the segments of one partition directory, oldest (lowest base offset) first; the last is the active one. */
public final class PartitionSegments {
    private PartitionSegments() {}

    public static List<SegmentFile> list(Path partitionDir) {
        List<SegmentFile> out = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(partitionDir)) {
            for (Path p : dir) {
                String name = p.getFileName().toString();
                if (SegmentName.isLogFile(name)) {
                    out.add(SegmentFile.of(p).orElseThrow());
                }
            }
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, partitionDir + ": cannot list: " + describe(e), e);
        }
        out.sort(Comparator.comparing(SegmentFile::name));
        return out;
    }

    /**
     * The epoch a manifest created from nothing gets offline: the newest segment's (never below 0, Apache's
     * unprefixed names have none), so it is not older than the files it describes.
     */
    public static int newestEpoch(List<SegmentFile> segments) {
        return Math.max(
                0, segments.stream().mapToInt(s -> s.name().epoch()).max().orElse(0));
    }

    /** True when the directory holds segment files or a manifest: what a partition directory looks like. */
    public static boolean isPartitionDir(Path dir) {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        if (Files.exists(dir.resolve(io.kaas.storage.format.Manifest.FILE_NAME))) {
            return true;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                if (SegmentName.isLogFile(p.getFileName().toString())) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** An I/O failure for a one-line message: its cause ("permission denied", "no space left on device") and the file it names. */
    public static String describe(IOException e) {
        return io.kaas.storage.io.IoFailure.describe(e);
    }
}
