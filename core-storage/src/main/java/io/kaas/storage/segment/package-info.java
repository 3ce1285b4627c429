/**
 * One segment's files and the walks over them. A {@link io.kaas.storage.segment.Segment} is a {@code .log}
 * of v2 batches exactly as the client sent them (base offset and leader epoch stamped outside the CRC) and a
 * sparse {@code .index} in Apache's layout ({@link io.kaas.storage.segment.IndexFileFormat}), rebuilt from
 * the log after a crash. Walks: {@link io.kaas.storage.segment.HeaderCursor} reads batch heads only (reads,
 * lookups), {@link io.kaas.storage.segment.BatchScanner} checks CRCs too (recovery, verify, dump,
 * rebuild-index). Files are opened through the engine's handle cache ({@code io}), never held idle.
 *
 * <p>Thread rule: a segment's writers hold Partition.lock; its reads take no lock and see only what was
 * published (sizes and index entries are published after their bytes are written). Batch bytes are opaque
 * here: only the 61-byte header is read.
 */
package io.kaas.storage.segment;
