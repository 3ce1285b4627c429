package io.kaas.recovery;

import io.kaas.storage.recovery.RecoveryReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Renders a {@link RecoveryReport} for people (a status line, then one indented line per change) and for scripts (one JSON line). */
public final class RecoveryReportText {
    private RecoveryReportText() {}

    public static String status(RecoveryReport r, boolean dryRun) {
        if (r.refused()) {
            return "DAMAGED, refused (nothing changed; --force removes only the damaged bytes, --force --truncate cuts there; either saves what it removes to .quarantine)";
        }
        if (!r.changed()) {
            return "clean";
        }
        return dryRun ? "would recover (dry run, nothing changed)" : "recovered";
    }

    public static List<String> lines(RecoveryReport r, boolean dryRun) {
        List<String> out = new ArrayList<>();
        out.add(r.partitionDir() + ": " + status(r, dryRun) + "; truncated " + r.bytesTruncated() + " bytes, dropped "
                + r.batchesDropped() + " batch(es) (" + r.recordsDropped() + " records), removed " + r.segmentsRemoved()
                + " segment file(s), rebuilt " + r.indexesRebuilt() + " index(es), high watermark "
                + r.highWatermarkBefore() + " -> " + r.highWatermarkAfter() + ", scanned " + r.bytesScanned()
                + " bytes");
        r.damage().forEach(d -> out.add("  damage: " + d));
        r.actions().forEach(a -> out.add("  " + (dryRun ? "would: " : "") + a));
        return out;
    }

    public static String json(RecoveryReport r, boolean dryRun) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("partition", r.partitionDir().toString());
        m.put("status", r.refused() ? "refused" : !r.changed() ? "clean" : dryRun ? "would_recover" : "recovered");
        m.put("dryRun", dryRun);
        m.put("bytesTruncated", r.bytesTruncated());
        m.put("batchesDropped", r.batchesDropped());
        m.put("recordsDropped", r.recordsDropped());
        m.put("segmentsRemoved", r.segmentsRemoved());
        m.put("indexesRebuilt", r.indexesRebuilt());
        m.put("segmentsScanned", r.segmentsScanned());
        m.put("bytesScanned", r.bytesScanned());
        m.put("highWatermarkBefore", r.highWatermarkBefore());
        m.put("highWatermarkAfter", r.highWatermarkAfter());
        m.put("damage", r.damage());
        m.put("actions", r.actions());
        return JsonLine.of(m);
    }
}
