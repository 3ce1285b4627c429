package io.kaas.storage.recovery;

import io.kaas.storage.format.Manifest;
import java.nio.file.Path;
import java.util.List;

/**
 * What one partition's recovery found and did (or, in a dry run, would do).
 *
 * @param partitionDir     the partition directory
 * @param segmentsScanned  log files read past their checkpoint/trusted part
 * @param bytesScanned     log bytes read (zero after a clean close)
 * @param bytesTruncated   torn-tail bytes cut off (or to be cut)
 * @param batchesDropped   whole valid batches discarded (only with --force on damage)
 * @param recordsDropped   records in those batches
 * @param segmentsRemoved  whole segment files removed (stale epochs, segments after forced damage)
 * @param indexesRebuilt   index files rewritten
 * @param manifestBefore   manifest as found (null if missing or unreadable)
 * @param manifestAfter    manifest as written (or to be written)
 * @param damage           bad batches followed by valid data, each "file:position: reason"
 * @param actions          one human-readable line per change
 * @param refused          true when damage stopped the scan from changing this partition
 */
public record RecoveryReport(
        Path partitionDir,
        int segmentsScanned,
        long bytesScanned,
        long bytesTruncated,
        long batchesDropped,
        long recordsDropped,
        int segmentsRemoved,
        int indexesRebuilt,
        Manifest manifestBefore,
        Manifest manifestAfter,
        List<String> damage,
        List<String> actions,
        boolean refused) {
    public RecoveryReport {
        damage = List.copyOf(damage);
        actions = List.copyOf(actions);
    }

    /** This report with {@code more} action lines after its own (recovery of the derivable state files). */
    public RecoveryReport withActions(List<String> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<String> all = new java.util.ArrayList<>(actions);
        all.addAll(more);
        return new RecoveryReport(
                partitionDir,
                segmentsScanned,
                bytesScanned,
                bytesTruncated,
                batchesDropped,
                recordsDropped,
                segmentsRemoved,
                indexesRebuilt,
                manifestBefore,
                manifestAfter,
                damage,
                all,
                refused);
    }

    public boolean changed() {
        return !actions.isEmpty();
    }

    public long highWatermarkBefore() {
        return manifestBefore == null ? -1 : manifestBefore.highWatermark();
    }

    public long highWatermarkAfter() {
        return manifestAfter == null ? -1 : manifestAfter.highWatermark();
    }
}
