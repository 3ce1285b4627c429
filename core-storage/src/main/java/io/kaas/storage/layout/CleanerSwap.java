package io.kaas.storage.layout;

import io.kaas.storage.format.CleanerSwapIntent;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How a cleaned segment replaces the segments it was made from, atomically across a crash:
 * <ol>
 *   <li>the cleaned log and index are written as {@code <name>.log.cleaned} and
 *       {@code <name>.index.cleaned} (the first replaced segment's name) and fsynced, with their
 *       directory;</li>
 *   <li><b>commit</b>: {@code cleaner-swap.json} names the new segment and every segment it replaces
 *       (written tmp + fsync + rename + directory fsync);</li>
 *   <li>the {@code .cleaned} files are renamed over their final names, the other replaced segments
 *       unlinked, the directory fsynced;</li>
 *   <li>{@code cleaner-swap.json} is removed.</li>
 * </ol>
 * A crash before (2) leaves {@code .cleaned} files and the old segments: recovery removes the
 * former. A crash after (2) leaves the intent: recovery repeats (3) and (4), which are idempotent.
 * Either way every offset is readable from exactly one segment, with its old bytes or its cleaned ones.
 * Partition open and {@code kaas recover} run {@link #recover} before they list segments.
 */
public final class CleanerSwap {
    public static final String CLEANED_SUFFIX = ".cleaned";

    private CleanerSwap() {}

    /** Where the cleaned copy of {@code name}'s log is written before the swap. */
    public static Path cleanedLog(Path dir, SegmentName name) {
        return dir.resolve(name.logFileName() + CLEANED_SUFFIX);
    }

    public static Path cleanedIndex(Path dir, SegmentName name) {
        return dir.resolve(name.indexFileName() + CLEANED_SUFFIX);
    }

    /**
     * Steps (2) to (4): the {@code .cleaned} files of {@code segment} are complete and fsynced (the
     * caller's step 1, directory included).
     */
    public static void commit(Path dir, SegmentName segment, List<SegmentName> replaced) throws IOException {
        CleanerSwapIntent intent = new CleanerSwapIntent(
                CleanerSwapIntent.VERSION,
                segment.logFileName(),
                replaced.stream().map(SegmentName::logFileName).toList());
        StateJson.write(dir.resolve(CleanerSwapIntent.FILE_NAME), intent);
        finish(dir, intent);
    }

    /**
     * Finishes a committed swap or discards an uncommitted one found in {@code dir}; with
     * {@code dryRun}, only says what it would do.
     *
     * @return one line per action taken (or due), empty when there was nothing to do
     */
    public static List<String> recover(Path dir, boolean dryRun) {
        List<String> actions = new ArrayList<>();
        Path intentFile = dir.resolve(CleanerSwapIntent.FILE_NAME);
        try {
            Optional<CleanerSwapIntent> intent = StateJson.read(intentFile, CleanerSwapIntent.class);
            if (intent.isPresent()) {
                actions.add(String.format(
                        "%s: %s the interrupted cleaner swap of %s (replacing %d segment(s))",
                        intentFile,
                        dryRun ? "would finish" : "finished",
                        intent.get().segment(),
                        intent.get().replaced().size()));
                if (!dryRun) {
                    finish(dir, intent.get());
                }
            }
            List<Path> leftovers = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + CLEANED_SUFFIX)) {
                ds.forEach(leftovers::add);
            }
            for (Path p : leftovers) {
                actions.add(p + ": " + (dryRun ? "would remove" : "removed") + " an unfinished cleaner file");
                if (!dryRun) {
                    Files.deleteIfExists(p);
                }
            }
            if (!dryRun && !leftovers.isEmpty()) {
                AtomicFile.fsyncDirectory(dir);
            }
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, dir + ": cannot finish a cleaner swap: " + e.getMessage(), e);
        }
        return actions;
    }

    private static void finish(Path dir, CleanerSwapIntent intent) throws IOException {
        SegmentName segment = parse(dir, intent.segment());
        // The index first: a crash between the two renames leaves the intent, and the next recovery
        // renames the log too; the new index beside an old log for that moment is never read.
        moveIfPresent(dir.resolve(segment.indexFileName() + CLEANED_SUFFIX), dir.resolve(segment.indexFileName()));
        moveIfPresent(dir.resolve(segment.logFileName() + CLEANED_SUFFIX), dir.resolve(segment.logFileName()));
        for (String log : intent.replaced()) {
            SegmentName old = parse(dir, log);
            if (!old.equals(segment)) {
                Files.deleteIfExists(dir.resolve(old.logFileName()));
                Files.deleteIfExists(dir.resolve(old.indexFileName()));
            }
        }
        AtomicFile.fsyncDirectory(dir);
        Files.deleteIfExists(dir.resolve(CleanerSwapIntent.FILE_NAME));
        AtomicFile.fsyncDirectory(dir);
    }

    private static void moveIfPresent(Path from, Path to) throws IOException {
        if (Files.exists(from)) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static SegmentName parse(Path dir, String logFileName) {
        return SegmentName.parse(logFileName)
                .filter(n -> logFileName.endsWith(SegmentName.LOG_SUFFIX))
                .orElseThrow(() -> new StorageException(
                        StorageException.Kind.IO,
                        dir.resolve(CleanerSwapIntent.FILE_NAME) + ": names " + logFileName
                                + ", which is not a segment log file"));
    }
}
