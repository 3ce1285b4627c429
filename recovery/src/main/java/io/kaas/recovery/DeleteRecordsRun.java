package io.kaas.recovery;

import io.kaas.storage.ExitCodes;
import io.kaas.storage.io.IoFailure;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.PartitionFinder;
import io.kaas.storage.layout.TopicDir;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code kaas delete-records}: applies a {@link DeleteRecordsRequest} to a data dir and prints, per
 * partition, what kafka-delete-records prints: {@code partition: T-P\tlow_watermark: N} or
 * {@code partition: T-P\terror: ...}; with {@code json}, one JSON object per partition and a summary
 * object ({@link JsonLine}). A damaged partition (the analysis {@code recover --dry-run} runs) is refused,
 * exit 1, as an out-of-range offset is.
 */
public final class DeleteRecordsRun {
    /** The data dir, or each dir of a broker's pool ({@code --log-dirs}): a partition is found in the one holding it. */
    private final List<Path> dataDirs;

    private final boolean dryRun;
    private final boolean force;
    private final boolean json;
    private final PrintWriter out;
    private final PrintWriter err;

    public DeleteRecordsRun(
            Path dataDir, boolean dryRun, boolean force, boolean json, PrintWriter out, PrintWriter err) {
        this(List.of(dataDir), dryRun, force, json, out, err);
    }

    public DeleteRecordsRun(
            List<Path> dataDirs, boolean dryRun, boolean force, boolean json, PrintWriter out, PrintWriter err) {
        this.dataDirs = List.copyOf(dataDirs);
        this.dryRun = dryRun;
        this.force = force;
        this.json = json;
        this.out = out;
        this.err = err;
    }

    public int run(DeleteRecordsRequest request) {
        String noData = null;
        for (Path dataDir : dataDirs) {
            noData = !Files.isDirectory(dataDir)
                    ? dataDir + ": " + (Files.exists(dataDir) ? "not a directory" : "no such data directory")
                    : holdsNoData(dataDir);
            if (noData != null) {
                break;
            }
        }
        if (noData != null) {
            err.println(noData);
            if (json) {
                out.println(JsonLine.of(
                        "type",
                        "summary",
                        "dryRun",
                        dryRun,
                        "partitions",
                        0,
                        "exitCode",
                        ExitCodes.UNREADABLE,
                        "error",
                        noData));
                out.flush();
            }
            err.flush();
            return ExitCodes.UNREADABLE;
        }
        int exit = ExitCodes.OK;
        if (!json) {
            out.println("Executing records delete operation" + (dryRun ? " (dry run: nothing is changed)" : ""));
        }
        StringBuilder results = new StringBuilder();
        int done = 0;
        for (DeleteRecordsRequest.Target t : request.targets()) {
            Path dir;
            try {
                dir = PartitionFinder.findInPool(dataDirs, t.topic(), t.partition())
                        .orElse(null);
            } catch (StorageException inTwo) {
                err.println(inTwo.getMessage());
                result(results, t, null, "refused", inTwo.getMessage(), null);
                exit = ExitCodes.worst(exit, ExitCodes.PROBLEMS);
                continue;
            }
            if (dir == null) {
                String error = "unknown topic or partition (no "
                        + String.join(
                                " nor ",
                                dataDirs.stream()
                                        .map(d -> TopicDir.partition(d, t.topic(), t.partition())
                                                .toString())
                                        .toList())
                        + ")";
                result(results, t, null, "error", error, null);
                exit = ExitCodes.worst(exit, ExitCodes.UNREADABLE);
                continue;
            }
            try (OwnerLock lock = OwnerLock.acquireIfOwned(dir, force || dryRun)) {
                RecordDeleter.Result r = RecordDeleter.delete(dir, t.offset(), dryRun);
                result(results, t, dir, dryRun ? "would_delete" : "deleted", null, r);
                done++;
                for (Path written : r.written()) {
                    err.println((dryRun ? "would write " : "wrote ") + written);
                }
                for (Path removed : r.removed()) {
                    err.println((dryRun ? "would remove " : "removed ") + removed);
                }
            } catch (StorageException e) {
                String message = IoFailure.withCause(e.getMessage(), e);
                if (e.kind() == StorageException.Kind.OFFSET_OUT_OF_RANGE
                        || e.kind() == StorageException.Kind.DAMAGED) {
                    // Kafka's OFFSET_OUT_OF_RANGE, or damage recover would refuse: the command ran and found the
                    // request cannot be applied; nothing changed.
                    if (e.kind() == StorageException.Kind.DAMAGED) {
                        err.println(message);
                    }
                    String firstLine = message.lines().findFirst().orElse(message);
                    result(
                            results,
                            t,
                            dir,
                            e.kind() == StorageException.Kind.DAMAGED ? "refused" : "error",
                            firstLine,
                            null);
                    exit = ExitCodes.worst(exit, ExitCodes.PROBLEMS);
                    continue;
                }
                err.println(message);
                result(results, t, dir, "error", message, null);
                exit = ExitCodes.worst(exit, ExitCodes.UNREADABLE);
            }
        }
        if (json) {
            out.println(JsonLine.of(
                    "type",
                    "summary",
                    "dryRun",
                    dryRun,
                    "partitions",
                    request.targets().size(),
                    dryRun ? "wouldDelete" : "deleted",
                    done,
                    "exitCode",
                    exit));
        } else {
            out.println("Records delete operation completed:");
            out.print(results);
        }
        out.flush();
        err.flush();
        return exit;
    }

    /** Why the data dir is none (no kaas or Kafka data under it, or it cannot be listed), or null when it is one. */
    private static String holdsNoData(Path dataDir) {
        try {
            PartitionFinder.find(dataDir);
            return null;
        } catch (StorageException e) {
            return IoFailure.withCause(e.getMessage(), e);
        }
    }

    /** One partition's outcome: a kafka-delete-records line kept for the end, or a JSON object printed now. */
    private void result(
            StringBuilder text,
            DeleteRecordsRequest.Target t,
            Path dir,
            String status,
            String error,
            RecordDeleter.Result r) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "partition");
            m.put("topic", t.topic());
            m.put("partition", t.partition());
            if (dir != null) {
                m.put("dir", dir.toString());
            }
            m.put("status", status);
            m.put("requestedOffset", t.offset());
            if (r != null) {
                m.put("lowWatermark", r.lowWatermark());
                m.put("previousLogStart", r.previousLogStart());
                m.put("highWatermark", r.highWatermark());
                m.put(
                        dryRun ? "wouldWrite" : "written",
                        r.written().stream().map(Path::toString).toList());
                m.put(
                        dryRun ? "wouldRemove" : "removed",
                        r.removed().stream().map(Path::toString).toList());
            }
            if (error != null) {
                m.put("error", error);
            }
            out.println(JsonLine.of(m));
            return;
        }
        text.append("partition: ").append(t.label());
        if (r != null) {
            text.append("\tlow_watermark: ").append(r.lowWatermark());
        } else {
            text.append("\terror: ").append(error);
        }
        text.append('\n');
    }
}
