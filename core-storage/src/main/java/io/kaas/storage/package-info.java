/**
 * The storage engine: topics and partitions under a data directory ({@link io.kaas.storage.DiskStorageEngine},
 * its dev-mode twin {@link io.kaas.storage.MemoryStorageEngine}) and one partition's log
 * ({@link io.kaas.storage.Partition}, start reading at its {@code append}).
 *
 * <p>A partition's lock, the state it guards, its sticky and closed flags and the view lock-free readers
 * see belong to {@link io.kaas.storage.PartitionCore}; every job needing the lock is a collaborator the
 * core hands the guarded state to while it holds the lock. Fsyncs run on {@code kaas-committer} threads
 * ({@link io.kaas.storage.GroupCommitter}), outside the lock. The exclusive and shared data-dir cases
 * differ in one policy object ({@link io.kaas.storage.DirectoryOwnership}).
 *
 * <p>This package is the top of core-storage: it uses cleaner, recovery, layout, segment, state, format
 * and io, and none of them uses it (cli's ArchitectureTest).
 */
package io.kaas.storage;
