/**
 * The formats of the files kaas reads and writes, as immutable records and the one codec for each: the
 * 61-byte v2 batch header ({@link io.kaas.storage.format.RecordBatchHeader}: peek, CRC-32C; with
 * {@link io.kaas.storage.format.BatchValidator} the producer-side checks; records are never decoded here) and
 * the JSON state files ({@link io.kaas.storage.format.StateJson}: manifest, log start, checkpoints, snapshots,
 * a topic's {@code .config.json}), described in docs/on-disk-format.md. What a file that does not parse means
 * is its reader's rule: derivable state is rebuilt from the log, a damaged {@code .config.json} refuses the
 * topic ({@link io.kaas.storage.format.TopicConfigFile}).
 *
 * <p>Thread rule: the records are immutable, the codecs stateless; any thread.
 */
package io.kaas.storage.format;
