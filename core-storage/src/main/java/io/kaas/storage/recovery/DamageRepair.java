package io.kaas.storage.recovery;

import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.RecoveryCheckpoint;
import io.kaas.storage.segment.HeaderCursor;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link RecoveryScan}'s damage verdict and what each {@link RecoveryOptions.DamagePolicy} does
 * about it. The verdict (the rule is in docs/on-disk-format.md, "Torn tail or damage"): a stop in a
 * closed segment, below the recovery checkpoint's byte or below the manifest's high watermark is in
 * durable bytes, so damage; past the last durable point it is damage only when a CRC-valid batch that
 * continues the log lies after it, else a torn tail. Segments whose offsets overlap are damage too.
 * {@code REFUSE} reports, {@code SALVAGE} removes only the bad ranges, {@code TRUNCATE} cuts at the
 * first; both forced policies quarantine every byte they remove first ({@link Quarantine}).
 */
final class DamageRepair {
    private final Path dir;
    private final RecoveryOptions options;
    private final List<String> damage;
    private final List<String> actions;
    private final List<Path> removals;
    private final Quarantine quarantine;
    long bytesRemoved;
    long batchesDropped;
    long recordsDropped;
    int segmentsRemoved;

    DamageRepair(Path dir, RecoveryOptions options, List<String> damage, List<String> actions, List<Path> removals) {
        this.dir = dir;
        this.options = options;
        this.damage = damage;
        this.actions = actions;
        this.removals = removals;
        this.quarantine = new Quarantine(dir, Instant.now());
    }

    /** Marks the plans whose stop is damage, with the evidence; a stop left unmarked is a torn tail. */
    void judge(List<SegmentPlan> plans, Manifest before, RecoveryCheckpoint cp) {
        for (int i = 0; i < plans.size(); i++) {
            SegmentPlan p = plans.get(i);
            if (p.stop == null) {
                continue;
            }
            boolean active = i == plans.size() - 1;
            long offsetAtStop = p.nextOffset >= 0 ? p.nextOffset : p.name.baseOffset();
            String evidence = null;
            if (!active) {
                evidence = "in a closed segment (fsynced whole when it rolled)";
            } else if (cp != null && cp.segmentBase() == p.name.baseOffset() && p.validEnd < cp.bytePos()) {
                evidence =
                        "below byte " + cp.bytePos() + ", which " + RecoveryCheckpoint.FILE_NAME + " says was fsynced";
            } else if (before != null
                    && offsetAtStop < before.highWatermark()
                    && offsetAtStop >= before.logStartOffset()) {
                evidence = "offset " + offsetAtStop + " is below the high watermark " + before.highWatermark()
                        + " that " + Manifest.FILE_NAME + " says was fsynced";
            } else if (p.damaged && p.pastTheLog != null) {
                evidence = p.pastTheLog;
            } else if (p.damaged) {
                SegmentLogScan.BadRange first = p.bad.get(0);
                evidence = "a CRC-valid batch continuing the log follows at byte " + first.end()
                        + " (bit rot, not a torn tail)";
            }
            p.damaged = evidence != null;
            p.evidence = evidence;
        }
    }

    /** Overlapping segments: a batch whose offsets reach the next segment's base offset (a copy under a lower name). */
    List<String> overlaps(List<SegmentPlan> plans) throws IOException {
        List<String> found = new ArrayList<>();
        for (int i = 0; i + 1 < plans.size(); i++) {
            SegmentPlan p = plans.get(i);
            SegmentPlan next = plans.get(i + 1);
            long reached = p.reachedOffset();
            if (reached < 0 && p.existingEntries != null && p.existingEntries.length > 0) {
                reached = p.existingEntries[p.existingEntries.length - 1].offset() + 1;
            }
            if (reached > next.name.baseOffset()) {
                long at = firstBatchReaching(p, next.name.baseOffset());
                found.add(String.format(
                        "%s:%d: offsets up to %d overlap the next segment %s, which starts at offset %d"
                                + " (a duplicate or misnamed segment); move the wrong copy out by hand, --force does not choose",
                        p.log, at, reached - 1, next.log.getFileName(), next.name.baseOffset()));
            }
        }
        return found;
    }

    private static long firstBatchReaching(SegmentPlan p, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(p.log, StandardOpenOption.READ)) {
            HeaderCursor cursor = new HeaderCursor(ch, 0, p.size);
            for (HeaderCursor.Framing f = cursor.next(); f == HeaderCursor.Framing.BATCH; f = cursor.next()) {
                if (cursor.lastOffset() >= offset) {
                    return cursor.position();
                }
            }
            return cursor.position();
        }
    }

    /**
     * Acts on the damaged plans as the policy says; true when the partition is refused (left
     * untouched). {@code overlaps} are refused under every policy: which copy is wrong is not evidence
     * the scan has.
     */
    boolean handle(List<SegmentPlan> plans, List<String> overlaps) throws IOException {
        int first = -1;
        for (int i = 0; i < plans.size() && first < 0; i++) {
            if (plans.get(i).damaged) {
                first = i;
            }
        }
        if (first < 0 && overlaps.isEmpty()) {
            return false;
        }
        if (first >= 0) {
            describe(plans, first);
        }
        damage.addAll(overlaps);
        if (options.onDamage() == RecoveryOptions.DamagePolicy.REFUSE || !overlaps.isEmpty()) {
            return true;
        }
        if (options.onDamage() == RecoveryOptions.DamagePolicy.SALVAGE) {
            salvage(plans);
        } else {
            truncate(plans, first);
        }
        return false;
    }

    /** Forced: a damaged state file that recovery rewrites is saved whole first, like every byte removed. */
    void quarantineWhole(Path file, String why) throws IOException {
        if (Files.isRegularFile(file)) {
            quarantine.add(file, 0, Files.size(file), why + "; rewritten by --force");
        }
    }

    /** Forced: bytes the scan cuts outside the damage verdict (a torn tail, late writes) are saved first too. */
    void quarantineRange(Path file, long start, long end, String why) {
        if (end > start) {
            quarantine.add(file, start, end, why);
        }
    }

    /** The action lines for what {@link #writeQuarantine} writes (none when nothing is quarantined). */
    void listQuarantine() {
        if (quarantine.isEmpty()) {
            return;
        }
        for (Path saved : quarantine.files()) {
            actions.add(saved + ": " + (options.dryRun() ? "would be written" : "written")
                    + " (quarantine of removed bytes)");
        }
    }

    private void describe(List<SegmentPlan> plans, int first) {
        SegmentPlan cutAt = plans.get(first);
        long cut = cutAt.size - cutAt.validEnd;
        for (SegmentPlan later : plans.subList(first + 1, plans.size())) {
            cut += later.size;
        }
        String truncation = String.format(
                "; --force --truncate would cut %d bytes from here and remove %d later segment(s)",
                cut, plans.size() - first - 1);
        for (SegmentPlan p : plans) {
            if (!p.damaged) {
                continue;
            }
            boolean firstRange = true;
            for (SegmentLogScan.BadRange r : p.bad) {
                String why = firstRange ? p.stop.getMessage() + " — " + p.evidence : r.why();
                boolean keeps = r.end() < p.size;
                damage.add(String.format(
                        "%s:%d: %s; --force would remove bytes %d-%d (%d bytes)%s%s",
                        p.log,
                        r.start(),
                        why,
                        r.start(),
                        r.end(),
                        r.length(),
                        keeps ? " and keep the intact batches after them" : ", to the end of the file",
                        p == cutAt && firstRange ? truncation : ""));
                firstRange = false;
            }
        }
    }

    private void salvage(List<SegmentPlan> plans) throws IOException {
        for (int i = 0; i < plans.size(); i++) {
            SegmentPlan p = plans.get(i);
            if (!p.damaged) {
                continue;
            }
            // A range to the end of a closed segment leaves unused the offsets up to the next segment's first.
            long nextBase = i + 1 < plans.size() ? plans.get(i + 1).name.baseOffset() : -1;
            for (SegmentLogScan.BadRange r : p.bad) {
                count(p.log, r.start(), r.end());
                long gapTo = r.gapTo() >= 0 ? r.gapTo() : nextBase;
                quarantine.add(
                        p.log, r.start(), r.end(), r.why(), gapTo < 0 ? null : r.gapFrom(), gapTo < 0 ? null : gapTo);
            }
            long removed = p.badBytes();
            bytesRemoved += removed;
            actions.add(String.format(
                    "%s: salvaged: removed %d damaged byte range(s), %d bytes; the batches after them are kept"
                            + " (an offset gap, as compaction leaves)",
                    p.log, p.bad.size(), removed));
            p.rewrite = true;
            p.unmovedEnd = p.bad.get(0).start();
            p.offsetAtUnmovedEnd = p.nextOffset >= 0 ? p.nextOffset : p.name.baseOffset();
            p.entries = p.salvageEntries;
            p.existingEntries = null; // rewrite() removes the index; apply writes the new one
            p.nextOffset = p.salvageNext >= 0 ? p.salvageNext : p.nextOffset;
            p.validEnd = p.size - removed;
            p.stop = null;
            p.damaged = false;
        }
    }

    private void truncate(List<SegmentPlan> plans, int first) throws IOException {
        SegmentPlan p = plans.get(first);
        count(p.log, p.validEnd, p.size);
        quarantine.add(p.log, p.validEnd, p.size, p.stop.getMessage());
        bytesRemoved += p.size - p.validEnd;
        actions.add(String.format(
                "%s: truncated from damaged batch at byte %d, discarding %d bytes",
                p.log, p.validEnd, p.size - p.validEnd));
        for (SegmentPlan later : new ArrayList<>(plans.subList(first + 1, plans.size()))) {
            count(later.log, 0, later.size);
            quarantine.add(later.log, 0, later.size, "segment after the damage cut by --force --truncate");
            removals.add(later.log);
            removals.add(later.index);
            segmentsRemoved++;
            actions.add(later.log + ": removed (after forced truncation)");
            plans.remove(later);
        }
        actions.add(String.format(
                "%s: --force --truncate discarded %d batch(es), %d record(s)", dir, batchesDropped, recordsDropped));
        // The damaged segment is now the active one; it keeps what was valid before the bad batch.
        if (p.nextOffset < 0) {
            p.nextOffset = p.name.baseOffset();
        }
        p.stop = null;
        p.damaged = false;
    }

    private void count(Path log, long from, long end) throws IOException {
        SegmentLogScan.Counts c = SegmentLogScan.countFramed(log, from, end);
        batchesDropped += c.batches();
        recordsDropped += c.records();
    }

    /**
     * Under --force: offsets {@code [from, to)} missing after segment {@code follows} are accepted, recorded in the
     * quarantine note as an empty range at that segment's end (no byte leaves the log).
     */
    void acceptGap(SegmentPlan follows, long from, long to, String why) {
        Path saved = quarantine.add(follows.log, follows.size, follows.size, why, from, to);
        actions.add(String.format(
                "%s: offsets %d..%d missing after it, accepted (--force); the gap is recorded in %s",
                follows.log, from, to - 1, saved.resolveSibling(Quarantine.NOTE)));
    }

    /** The quarantine this repair plans (written by {@link PlanApply}, before anything it saves is removed). */
    Quarantine quarantine() {
        return quarantine;
    }
}
