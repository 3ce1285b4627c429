package io.kaas.storage.recovery;

import io.kaas.storage.format.LogStart;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.StorageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The durable copies of a partition's log start — {@code manifest.json} and {@code log-start.json}
 * ({@link io.kaas.storage.state.PartitionStateFiles#advanceLogStart}) — read and judged by one rule, which
 * the recovery scan and {@code kaas verify} both ask:
 * <ul>
 *   <li>A copy that cannot be read is ignored (and rewritten by recovery); the log start is the highest one
 *       any readable copy records, so it never moves back because one file was damaged.</li>
 *   <li>A copy no writer can leave is damage: a negative {@code logStartOffset} or {@code highWatermark},
 *       or a {@code logStartOffset} past the {@code highWatermark} written with it (every writer takes the log
 *       start at or below the log end it writes beside it). A log start past the <em>recovered</em> log end
 *       is not damage when its own high watermark reaches it: an acknowledged DeleteRecords that outran
 *       acks=1 data lost in a power cut; the log resumes at the log start. A manifest whose log start is past
 *       the one log-start.json records is damage too: the copy is written first at every move.</li>
 * </ul>
 *
 * @param manifest  the manifest as read, null when missing, unreadable or damaged
 * @param copy      log-start.json as read, null when missing, unreadable or damaged
 * @param logStart  the highest log start a readable, sound copy records; -1 when none does
 * @param impossible each impossible copy: the file and what is wrong (byte 0: the whole JSON file is meant)
 * @param unreadable each copy that exists but cannot be read: the file and why
 */
public record DurableLogStart(
        Manifest manifest, LogStart copy, long logStart, List<Finding> impossible, List<Finding> unreadable) {
    /** One copy's finding. */
    public record Finding(Path file, String what) {}

    public DurableLogStart {
        impossible = List.copyOf(impossible);
        unreadable = List.copyOf(unreadable);
    }

    /** Each impossible copy as a damage line, {@code FILE:0: what}. */
    public List<String> damage() {
        return impossible.stream().map(f -> f.file() + ":0: " + f.what()).toList();
    }

    /** Each unreadable copy as an action line (recovery rewrites it). */
    public List<String> actions() {
        return unreadable.stream()
                .map(f -> f.file() + ": unreadable (" + f.what() + "), ignored and rewritten")
                .toList();
    }

    public static DurableLogStart read(Path partitionDir) {
        List<Finding> damage = new ArrayList<>();
        List<Finding> actions = new ArrayList<>();
        Path manifestFile = partitionDir.resolve(Manifest.FILE_NAME);
        Manifest manifest = readCopy(manifestFile, Manifest.class, actions);
        if (manifest != null && !sound(manifestFile, manifest.logStartOffset(), manifest.highWatermark(), damage)) {
            manifest = null;
        }
        Path copyFile = partitionDir.resolve(LogStart.FILE_NAME);
        LogStart copy = readCopy(copyFile, LogStart.class, actions);
        if (copy != null && !sound(copyFile, copy.logStartOffset(), copy.highWatermark(), damage)) {
            copy = null;
        }
        if (manifest != null && copy != null && manifest.logStartOffset() > copy.logStartOffset()) {
            // The copy is written before the manifest at every move, so a manifest ahead of it is explained by no
            // write.
            damage.add(new Finding(
                    manifestFile,
                    "logStartOffset " + manifest.logStartOffset() + " is past the log start " + copy.logStartOffset()
                            + " that " + LogStart.FILE_NAME + " records (written before every move of it)"));
            manifest = null;
        }
        long logStart =
                Math.max(manifest == null ? -1 : manifest.logStartOffset(), copy == null ? -1 : copy.logStartOffset());
        return new DurableLogStart(manifest, copy, logStart, damage, actions);
    }

    /**
     * Why {@code manifest}'s epoch is stale, or null: a segment named with a newer epoch proves that epoch
     * led the partition, and the manifest's epoch (what fences older leaders) never lags one that wrote.
     * Recovery rewrites it with {@code newestSegmentEpoch}; verify reports it. -1: no epoch-named segment.
     */
    public static String epochBehindSegments(Manifest manifest, int newestSegmentEpoch) {
        return manifest != null && newestSegmentEpoch >= 0 && manifest.epoch() < newestSegmentEpoch
                ? "epoch " + manifest.epoch() + " is older than segment epoch " + newestSegmentEpoch
                : null;
    }

    /** The high watermark recorded beside the winning log start (the log end when it was written); -1 when none. */
    public long highWatermark() {
        return Math.max(manifest == null ? -1 : manifest.highWatermark(), copy == null ? -1 : copy.highWatermark());
    }

    /** Whether log-start.json must be (re)written for {@code recovered}: missing, unreadable, or not recording it. */
    public boolean copyNeedsWrite(long recovered) {
        return recovered > 0 && (copy == null || copy.logStartOffset() != recovered);
    }

    private static boolean sound(Path file, long logStart, long highWatermark, List<Finding> damage) {
        if (logStart < 0) {
            damage.add(new Finding(file, "logStartOffset " + logStart + " is negative"));
            return false;
        }
        if (highWatermark < 0) {
            damage.add(new Finding(file, "highWatermark " + highWatermark + " is negative"));
            return false;
        }
        if (logStart > highWatermark) {
            damage.add(new Finding(
                    file,
                    "logStartOffset " + logStart + " is past the highWatermark " + highWatermark
                            + " written with it (no writer leaves that)"));
            return false;
        }
        return true;
    }

    private static <T> T readCopy(Path file, Class<T> type, List<Finding> unreadable) {
        try {
            return StateJson.read(file, type).orElse(null);
        } catch (StorageException e) {
            unreadable.add(new Finding(file, e.getMessage()));
            return null;
        }
    }
}
