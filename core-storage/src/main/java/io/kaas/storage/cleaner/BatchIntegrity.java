package io.kaas.storage.cleaner;

import io.kaas.storage.io.StorageException;
import java.nio.file.Path;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * The checks every batch the cleaner reads passes before its group is swapped: its CRC-32C and the order of
 * its offsets ({@link BatchOffsetOrder}), failed as damage naming file and byte. The map pass checks the
 * segments it reads whole, the copy pass the others, so each batch is checked once.
 *
 * <p>Stateless; any thread.
 */
final class BatchIntegrity {
    private BatchIntegrity() {}

    /** @throws StorageException DAMAGED when the batch at {@code position} of {@code log} fails its CRC */
    static void checkCrc(MutableRecordBatch batch, Path log, long position) {
        try {
            batch.ensureValid();
        } catch (KafkaException e) {
            throw damaged(batch, log, position, e.getMessage());
        }
    }

    /** {@link BatchOffsetOrder#check}, failing the pass as damage; returns the offset the next batch must reach. */
    static long checkOffsets(MutableRecordBatch batch, Path log, long position, long minBase) {
        BatchOffsetOrder.check(batch, minBase).ifPresent(what -> {
            throw damaged(batch, log, position, what);
        });
        return batch.nextOffset();
    }

    static StorageException damaged(MutableRecordBatch batch, Path log, long position, String what) {
        return new StorageException(
                StorageException.Kind.DAMAGED,
                log + ":" + position + ": batch at offset " + batch.baseOffset()
                        + " (the batch at or after this byte): " + what
                        + " — run `kaas verify` / `kaas recover`; nothing was cleaned");
    }
}
