/**
 * Log compaction: the one exception to "batch bytes are opaque". Everywhere else in kaas a batch is
 * its 61-byte header and bytes passed through; here, and only here, records are decoded (kafka-clients'
 * {@code MemoryRecords}) and batches that lose records are rebuilt (its {@code MemoryRecordsBuilder},
 * through {@code MemoryRecords.filterTo}) with their offsets, timestamps, producer id, epoch, base
 * sequence and codec. cli's ArchitectureTest keeps kafka-clients' record classes out of the rest of
 * core-storage. The rules are Apache's ({@code LogCleaner}); the swap of cleaned segments and its
 * recovery are in {@link io.kaas.storage.layout.CleanerSwap}, the on-disk side in docs/on-disk-format.md.
 *
 * <p>Thread rule: a pass runs on one thread (a {@code kaas-log-cleaner-N} thread of the engine, or
 * {@code kaas compact}), with a {@link io.kaas.storage.cleaner.LogCleaner} of its own; it reads and writes
 * outside the partition lock, which the engine takes only where the pass starts and for each group's swap.
 */
package io.kaas.storage.cleaner;
