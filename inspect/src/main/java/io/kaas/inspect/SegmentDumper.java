package io.kaas.inspect;

import io.kaas.storage.ExitCodes;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code kaas dump-segment}: prints {@code .log}, {@code .index} and state files the way Apache's
 * {@code kafka-dump-log} does, plus JSON. Returns an exit code: 0 clean, 1 when a file holds invalid
 * bytes, bad CRCs or index mismatches, 3 when a file cannot be read (one line on stderr naming it).
 */
public final class SegmentDumper {
    private final DumpOptions options;
    private final PrintWriter out;
    private final PrintWriter err;

    public SegmentDumper(DumpOptions options, PrintWriter out, PrintWriter err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    public int dump(List<Path> files) {
        int exit = ExitCodes.OK;
        DumpOutput output = new DumpOutput(out, err, options.json());
        for (Path file : files) {
            exit = ExitCodes.worst(exit, dumpOne(file, output));
            output.flush();
        }
        if (options.json()) {
            // JSON Lines' last object, as every command's --json ends
            out.println(DumpOutput.toJson(new Events.Summary(files.size(), exit)));
            out.flush();
        }
        return exit;
    }

    private int dumpOne(Path file, DumpOutput output) {
        String name = file.getFileName() == null
                ? file.toString()
                : file.getFileName().toString();
        try {
            if (!Files.exists(file)) {
                throw new NoSuchFileException(file.toString());
            }
            if (Files.isDirectory(file)) {
                return unreadable(file + ": is a directory, expected a segment, index or state file");
            }
            if (StateFileDumper.handles(file)) {
                if (!output.json()) {
                    out.println("Dumping " + file);
                }
                StateFileDumper.dump(file, output.json(), out);
                return ExitCodes.OK;
            }
            if (name.endsWith(SegmentName.LOG_SUFFIX)) {
                output.emit(new Events.FileStart(file));
                return problems(new LogDumper(options, output).dump(file));
            }
            if (name.endsWith(SegmentName.INDEX_SUFFIX)) {
                output.emit(new Events.FileStart(file));
                return problems(new IndexDumper(options, output).dump(file));
            }
            return unreadable(file + ": not a segment (.log), index (.index) or state file (manifest.json, "
                    + "recovery-checkpoint.json, producer-state.snapshot, txn-index.snapshot, leader-epoch-checkpoint.json, "
                    + "__cluster/share_groups/<group>.json)");
        } catch (NoSuchFileException e) {
            return unreadable(file + ": no such file");
        } catch (AccessDeniedException e) {
            return unreadable(file + ": permission denied");
        } catch (IOException e) {
            return unreadable(
                    e.getMessage() != null && e.getMessage().startsWith(file.toString())
                            ? e.getMessage()
                            : file + ": cannot read: " + e.getMessage());
        } catch (UncheckedIOException | StorageException e) {
            return unreadable(e.getMessage());
        }
    }

    private static int problems(int count) {
        return count == 0 ? ExitCodes.OK : ExitCodes.PROBLEMS;
    }

    private int unreadable(String line) {
        out.flush();
        err.println(line);
        err.flush();
        return ExitCodes.UNREADABLE;
    }
}
