package io.kaas.recovery;

import io.kaas.storage.ExitCodes;
import io.kaas.storage.StorageException;
import io.kaas.storage.layout.OwnerLock;
import io.kaas.storage.layout.PartitionFinder;
import io.kaas.storage.layout.TopicDir;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code kaas delete-records}: applies a {@link DeleteRecordsRequest} to a data dir and prints, per
 * partition, what kafka-delete-records prints: {@code partition: T-P\tlow_watermark: N} or
 * {@code partition: T-P\terror: ...}.
 */
public final class DeleteRecordsRun {
    private final Path dataDir;
    private final boolean dryRun;
    private final boolean force;
    private final PrintWriter out;
    private final PrintWriter err;

    public DeleteRecordsRun(Path dataDir, boolean dryRun, boolean force, PrintWriter out, PrintWriter err) {
        this.dataDir = dataDir;
        this.dryRun = dryRun;
        this.force = force;
        this.out = out;
        this.err = err;
    }

    public int run(DeleteRecordsRequest request) {
        if (!Files.isDirectory(dataDir)) {
            err.println(dataDir + ": no such data directory");
            return ExitCodes.UNREADABLE;
        }
        int exit = ExitCodes.OK;
        out.println("Executing records delete operation" + (dryRun ? " (dry run: nothing is changed)" : ""));
        StringBuilder results = new StringBuilder();
        for (DeleteRecordsRequest.Target t : request.targets()) {
            Path dir = PartitionFinder.find(dataDir, t.topic(), t.partition()).orElse(null);
            if (dir == null) {
                results.append("partition: ").append(t.label()).append("\terror: unknown topic or partition (no ")
                        .append(TopicDir.partition(dataDir, t.topic(), t.partition())).append(")\n");
                exit = ExitCodes.worst(exit, ExitCodes.UNREADABLE);
                continue;
            }
            try (OwnerLock lock = OwnerLock.acquireIfOwned(dir, force || dryRun)) {
                RecordDeleter.Result r = RecordDeleter.delete(dir, t.offset(), dryRun);
                results.append("partition: ").append(t.label()).append("\tlow_watermark: ").append(r.lowWatermark()).append('\n');
                for (Path removed : r.removed()) {
                    err.println((dryRun ? "would remove " : "removed ") + removed);
                }
            } catch (StorageException e) {
                if (e.kind() == StorageException.Kind.OFFSET_OUT_OF_RANGE) {
                    // Kafka's OFFSET_OUT_OF_RANGE: the command ran, the request was wrong; nothing changed.
                    results.append("partition: ").append(t.label()).append("\terror: ").append(e.getMessage()).append('\n');
                    exit = ExitCodes.worst(exit, ExitCodes.PROBLEMS);
                    continue;
                }
                err.println(e.getMessage());
                results.append("partition: ").append(t.label()).append("\terror: ").append(e.getMessage()).append('\n');
                exit = ExitCodes.worst(exit, ExitCodes.UNREADABLE);
            }
        }
        out.println("Records delete operation completed:");
        out.print(results);
        out.flush();
        err.flush();
        return exit;
    }
}
