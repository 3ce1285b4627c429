package io.kaas.recovery;

import io.kaas.storage.ExitCodes;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.SegmentFile;
import io.kaas.storage.layout.Targets;
import io.kaas.storage.recovery.PartitionAnalysis;
import io.kaas.storage.segment.IndexPolicy;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code kaas rebuild-index PATH}: for every segment under PATH, compute the index the broker would
 * write and (unless checking or dry-running) replace the one on disk when it differs. Takes each
 * partition's owner lock first (refusing, exit 3, when a broker holds it) unless forced.
 */
public final class RebuildIndexRun {
    /** What the run may do. {@code write} false = --check or --dry-run. */
    public record Options(IndexPolicy policy, boolean write, boolean check, boolean force, boolean json) {}

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;

    public RebuildIndexRun(Options options, PrintWriter out, PrintWriter err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    public int run(Path path) {
        Map<Path, List<SegmentFile>> targets;
        try {
            targets = Targets.segments(path);
        } catch (StorageException e) {
            err.println(IoFailure.withCause(e.getMessage(), e));
            summaryJson(0, 0, ExitCodes.UNREADABLE);
            return ExitCodes.UNREADABLE;
        }
        int exit = ExitCodes.OK;
        int differing = 0;
        int segments = 0;
        IndexRebuilder rebuilder = new IndexRebuilder(options.policy());
        for (Map.Entry<Path, List<SegmentFile>> partition : targets.entrySet()) {
            boolean lockNeeded = options.write() && !options.force();
            try (OwnerLock lock = OwnerLock.acquireIfOwned(partition.getKey(), !lockNeeded)) {
                // An index is derived from the log: from a damaged log it would index the damage. Refused, as recover
                // refuses it.
                PartitionAnalysis.requireUndamaged(
                        partition.getKey(), options.write() ? "no index was rewritten" : "no index was compared");
                for (SegmentFile segment : partition.getValue()) {
                    segments++;
                    IndexRebuilder.Result r = rebuilder.rebuild(segment, options.write());
                    if (r.changed()) {
                        differing++;
                    }
                    print(r);
                }
            } catch (StorageException e) {
                String message = IoFailure.withCause(e.getMessage(), e);
                err.println(message);
                boolean damaged = e.kind() == StorageException.Kind.DAMAGED;
                if (options.json()) {
                    out.println(JsonLine.of(
                            "type",
                            "partition",
                            "partition",
                            partition.getKey().toString(),
                            "status",
                            damaged ? "refused" : "error",
                            "reason",
                            message.lines().findFirst().orElse(message)));
                }
                exit = ExitCodes.worst(exit, damaged ? ExitCodes.PROBLEMS : ExitCodes.UNREADABLE);
            }
            out.flush();
        }
        String verb = options.write() ? "rewritten" : (options.check() ? "differ" : "would be rewritten");
        err.println(segments + " segment(s), " + differing + " index(es) " + verb);
        err.flush();
        if (options.check() && differing > 0) {
            exit = ExitCodes.worst(exit, ExitCodes.PROBLEMS);
        }
        summaryJson(segments, differing, exit);
        return exit;
    }

    /** With --json, the last line: {"type":"summary",...}. */
    private void summaryJson(int segments, int differing, int exit) {
        if (options.json()) {
            out.println(JsonLine.of(
                    "type",
                    "summary",
                    "segments",
                    segments,
                    options.write() ? "rewritten" : options.check() ? "differ" : "wouldRewrite",
                    differing,
                    "exitCode",
                    exit));
            out.flush();
        }
    }

    private void print(IndexRebuilder.Result r) {
        Path index = r.segment().index();
        if (options.json()) {
            out.println(JsonLine.of(
                    "type",
                    "index",
                    "file",
                    index.toString(),
                    "entries",
                    r.entries(),
                    "changed",
                    r.changed(),
                    "written",
                    r.written(),
                    "difference",
                    r.difference(),
                    "validBytes",
                    r.validBytes(),
                    "invalidTailBytes",
                    r.invalidTail()));
            return;
        }
        String tail = r.invalidTail() > 0
                ? " (log has " + r.invalidTail() + " invalid bytes at position " + r.validBytes()
                        + "; indexed the valid part, recover would cut the rest)"
                : "";
        if (!r.changed()) {
            out.println("unchanged " + index + ": " + r.entries() + " entries" + tail);
        } else if (r.written()) {
            out.println("rebuilt " + index + ": " + r.entries() + " entries, was " + r.difference() + tail);
        } else {
            out.println((options.check() ? "differs " : "would rebuild ") + index + ": " + r.difference() + tail);
        }
    }
}
