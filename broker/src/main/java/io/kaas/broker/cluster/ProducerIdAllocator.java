package io.kaas.broker.cluster;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.LongUnaryOperator;

/**
 * Hands out producer ids that are unique across restarts. Ids come in blocks: before the first id of
 * a block is used, the end of that block is written durably to
 * {@code <data>/__cluster/producer_ids/next-block.json}; a restart starts at that end, so an id is
 * never reused even after a crash (at the cost of skipping the rest of the block). Thread-safe.
 */
public final class ProducerIdAllocator {
    public static final long BLOCK_SIZE = 1000;
    public static final String FILE_NAME = "next-block.json";

    /** The file's content: the first id no previous run may have handed out. */
    public record NextBlock(long nextBlockStart) {}

    private final Path file;
    /** Several brokers over one directory: blocks come from the coordination store, not the file. */
    private final LongUnaryOperator blockSource;

    private long next;
    private long blockEnd;

    /** Blocks reserved by {@code blockSource} (block size → first id), e.g. a coordination store's counter. */
    public ProducerIdAllocator(LongUnaryOperator blockSource) {
        this.file = null;
        this.blockSource = blockSource;
    }

    public ProducerIdAllocator(Path clusterDir) {
        Path dir = ClusterDir.producerIds(clusterDir);
        try {
            AtomicFile.createDirectories(dir);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, dir + ": cannot create: " + e.getMessage(), e);
        }
        this.file = dir.resolve(FILE_NAME);
        this.blockSource = null;
        long start = StateJson.read(file, NextBlock.class)
                .map(NextBlock::nextBlockStart)
                .orElse(0L);
        this.next = start;
        this.blockEnd = start;
    }

    public synchronized long allocate() {
        if (next >= blockEnd && blockSource != null) {
            next = blockSource.applyAsLong(BLOCK_SIZE);
            blockEnd = next + BLOCK_SIZE;
        } else if (next >= blockEnd) {
            long end = next + BLOCK_SIZE;
            StateJson.write(file, new NextBlock(end));
            blockEnd = end;
        }
        return next++;
    }
}
