package io.kaas.cli.damage;

import io.kaas.cli.KaasRun;
import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.FetchResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.io.StorageException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The tools the campaign runs on a damaged data dir, each in-process on a copy of its own. */
enum Tool {
    RECOVER_DRY_RUN("recover --dry-run", false),
    RECOVER("recover", false),
    /** The broker's open shape offline (checkpoint and sane closed segments trusted): what the engine open is held to. */
    RECOVER_FAST("recover --fast", false),
    VERIFY("verify", false),
    COMPACT("compact", false),
    DELETE_RECORDS("delete-records", false),
    REBUILD_INDEX("rebuild-index", false),
    ENGINE_OPEN("engine open", false),
    RECOVER_FORCE("recover --force", true),
    RECOVER_FORCE_TRUNCATE("recover --force --truncate", true);

    /** Exit code of an engine open that refused the partition as damaged (as a tool's "problems found"). */
    static final int REFUSED = 1;

    final String label;
    /** May remove CRC-valid batches (into the quarantine). */
    final boolean forced;

    Tool(String label, boolean forced) {
        this.label = label;
        this.forced = forced;
    }

    /**
     * What a run did: its exit (the engine's open: 0 opened, 1 refused as damaged, 3 other storage error,
     * 70 anything else) and its first lines of output; the log start and high watermark the engine opened
     * with (-1 for the commands), and why reading the opened partition from its log start failed (or null).
     */
    record Result(int exit, String output, long logStart, long highWatermark, String readFailure) {}

    /** Runs this tool on {@code data}; {@code deleteTo} is the offset given to delete-records. */
    Result run(Path data, long deleteTo) {
        Result r = runOn(data, deleteTo);
        // the case's directory is the same in every line: left out, the report stays readable
        return new Result(
                r.exit(), r.output().replace(data + "/", ""), r.logStart(), r.highWatermark(), r.readFailure());
    }

    private Result runOn(Path data, long deleteTo) {
        String dir = data.toString();
        String interval = Integer.toString(Scenario.INDEX_INTERVAL);
        return switch (this) {
            case RECOVER_DRY_RUN -> kaas("recover", "--dry-run", "--index-interval-bytes", interval, dir);
            case RECOVER -> kaas("recover", "--index-interval-bytes", interval, dir);
            case RECOVER_FAST -> kaas("recover", "--fast", "--index-interval-bytes", interval, dir);
            case VERIFY -> kaas("verify", dir);
            case COMPACT -> kaas("compact", dir);
            case DELETE_RECORDS ->
                kaas(
                        "delete-records",
                        "--data-dir",
                        dir,
                        "--topic",
                        Scenario.TOPIC,
                        "--partition",
                        "0",
                        "--offset",
                        Long.toString(deleteTo));
            case REBUILD_INDEX -> kaas("rebuild-index", "--index-interval-bytes", interval, dir);
            case RECOVER_FORCE -> kaas("recover", "--force", "--index-interval-bytes", interval, dir);
            case RECOVER_FORCE_TRUNCATE ->
                kaas("recover", "--force", "--truncate", "--index-interval-bytes", interval, dir);
            case ENGINE_OPEN -> open(data);
        };
    }

    private static Result kaas(String... args) {
        KaasRun r = KaasRun.of(args);
        return new Result(r.exitCode(), brief(r.out() + r.err()), -1, -1, null);
    }

    /** Opens the engine on {@code data} and reads the partition from its log start to its high watermark. */
    static Result open(Path data) {
        try (DiskStorageEngine engine = new DiskStorageEngine(Scenario.config(data, 2))) {
            PartitionLog log = engine.partition(Scenario.TP);
            long start = log.state().logStartOffset();
            long end = log.state().highWatermark();
            long offset = start;
            while (offset < end) {
                FetchResult f;
                try {
                    f = log.read(offset, 1 << 20, end);
                } catch (StorageException e) {
                    // The open trusts closed segments it did not scan (it reads only the active segment's tail):
                    // a read that meets their damage must refuse as corrupt, naming file and byte (the broker
                    // answers CORRUPT_MESSAGE), never hand out bytes that do not frame a batch. Reads check
                    // framing only, not CRCs (like Apache, the consumer checks those): that is the contract.
                    if (e.kind() == StorageException.Kind.CORRUPT_BATCH
                            && e.getMessage().matches("(?s).*\\.log:\\d+: .*")) {
                        return new Result(
                                0,
                                "opened, read refused at " + offset + ": " + brief(e.getMessage()),
                                start,
                                end,
                                null);
                    }
                    return new Result(
                            0, "opened", start, end, "read at " + offset + ": " + e.kind() + ": " + e.getMessage());
                }
                long next;
                try {
                    next = nextOffset(f.records());
                } catch (IllegalStateException e) {
                    return new Result(0, "opened", start, end, "read at " + offset + ": " + e.getMessage());
                }
                if (next <= offset) {
                    return new Result(
                            0,
                            "opened",
                            start,
                            end,
                            "read at " + offset + " (high watermark " + end + ") returned no batch past it");
                }
                offset = next;
            }
            return new Result(0, "opened, read " + start + ".." + end, start, end, null);
        } catch (StorageException e) {
            return new Result(
                    e.kind() == StorageException.Kind.DAMAGED ? REFUSED : 3,
                    e.kind() + ": " + brief(e.getMessage()),
                    -1,
                    -1,
                    null);
        } catch (RuntimeException e) {
            return new Result(70, e + " at " + whereThrown(e), -1, -1, null);
        }
    }

    /** The first kaas frames of a bug's stack: where to look. */
    private static String whereThrown(Throwable e) {
        List<String> frames = new ArrayList<>();
        for (StackTraceElement f : e.getStackTrace()) {
            if (f.getClassName().startsWith("io.kaas.") && frames.size() < 3) {
                frames.add(f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1) + "." + f.getMethodName()
                        + ":" + f.getLineNumber());
            }
        }
        return frames.isEmpty() ? "?" : String.join(" < ", frames);
    }

    /**
     * The offset after the batches of a read, or -1 if it returned none; throws if its first batch's length does
     * not frame it. Bytes that do not frame a batch after whole ones are read as Kafka's consumers read a partial
     * trailing batch (dropped; the next fetch starts after the last whole batch, and must then return a whole
     * batch or refuse as corrupt): a read takes the batches up to an index entry without reading their headers
     * (one pread per entry, not per batch), so damage between them reaches the reader, which checks CRCs.
     */
    private static long nextOffset(ByteBuffer records) {
        long next = -1;
        for (int pos = records.position(); pos < records.limit(); ) {
            RecordBatchHeader h = pos + RecordBatchHeader.HEADER_SIZE <= records.limit()
                    ? RecordBatchHeader.peek(records, pos)
                    : null;
            boolean frames = h != null
                    && h.sizeInBytes() >= RecordBatchHeader.HEADER_SIZE
                    && pos + h.sizeInBytes() <= records.limit();
            if (!frames && next >= 0) {
                return next;
            }
            if (!frames) {
                throw new IllegalStateException("the read returned bytes that do not frame a batch at byte "
                        + (pos - records.position()) + " of " + records.remaining()
                        + (h == null ? "" : " (length field " + h.sizeInBytes() + ")"));
            }
            next = h.nextOffset();
            pos += h.sizeInBytes();
        }
        return next;
    }

    /** The first lines of a tool's output, on one line, for the campaign's report. */
    static String brief(String output) {
        List<String> lines = new ArrayList<>();
        if (output != null) {
            output.lines().map(String::strip).filter(l -> !l.isEmpty()).limit(3).forEach(lines::add);
        }
        String s = String.join(" | ", lines);
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
