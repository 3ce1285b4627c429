/**
 * A partition's idempotence and transaction state, read from the batch headers and control markers the
 * broker appends: the producer window ({@link io.kaas.storage.state.ProducerStateTable}), open and
 * aborted transactions ({@link io.kaas.storage.state.TxnIndex}), and the order their snapshots and the
 * recovery checkpoint are written in ({@link io.kaas.storage.state.PartitionStateFiles}). Changed only
 * under the partition lock; readers on other threads get the immutable copies the partition publishes.
 */
package io.kaas.storage.state;
