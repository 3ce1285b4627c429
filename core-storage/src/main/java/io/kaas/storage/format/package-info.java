/**
 * The bytes kaas reads and writes, as records: the v2 batch header ({@link
 * io.kaas.storage.format.RecordBatchHeader}, peeked and checked, never the records), and the JSON state
 * files of a partition and a topic (manifest, log start, checkpoints, snapshots, topic config and id),
 * each with its {@code FILE_NAME} and one codec ({@link io.kaas.storage.format.StateJson}). Layouts in
 * docs/on-disk-format.md. Uses only {@code io}.
 */
package io.kaas.storage.format;
