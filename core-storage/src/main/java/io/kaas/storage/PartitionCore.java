package io.kaas.storage;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.kaas.storage.io.StorageException;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one owner of a partition's lock and of what lives beside it: the {@link GuardedState} the lock
 * guards, the sticky failure, the closed flag and the {@link PartitionView} lock-free readers see.
 *
 * <p>Lock rule: the guarded state is reachable only through {@link #read}, {@link #change},
 * {@link #changeIfFree} and {@link #close}, which run a collaborator's body with the lock held and hand
 * it the state for that long ({@code @GuardedBy}, checked by Error Prone at compile time). Every
 * {@link #change} publishes a new view before it lets the lock go, so readers see each change whole and
 * never a state half-way through one. The flags and the view are volatile: a reader, a health check or
 * a committer learns of a failure or a close without the lock (a hung fsync never blocks them).
 */
final class PartitionCore {
    /** A body run under the lock. */
    interface Locked<T, E extends Exception> {
        T run(GuardedState state) throws E;
    }

    private final TopicPartition id;
    private final ReentrantLock lock = new ReentrantLock();

    @GuardedBy("lock")
    private final GuardedState state;

    private volatile PartitionView view;
    /** Set by an fsync failure or stall, a write that left a segment in doubt, a failed swap; sticky until reopen. */
    private volatile StorageException sticky;
    /** Set once, under the lock; read lock-free by readers (a read that lost a segment retries unless closed). */
    private volatile boolean closed;
    /** Bumped under the lock by an append that asks for a flush; read lock-free by the committer to decide whether to run. */
    private volatile long requestedFlushSeq;

    PartitionCore(TopicPartition id, GuardedState state) {
        this.id = id;
        this.state = state;
        this.view = state.view();
    }

    /** Runs {@code body} under the lock; changes nothing readers see (a capture, a consistent read). */
    <T, E extends Exception> T read(Locked<T, E> body) throws E {
        lock.lock();
        try {
            return body.run(state);
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code body} under the lock, then publishes the view of what it left, even when it threw. */
    <T, E extends Exception> T change(Locked<T, E> body) throws E {
        lock.lock();
        try {
            try {
                return body.run(state);
            } finally {
                view = state.view();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link #change} if the lock is free at once, else null without running {@code body}: for a caller
     * that must not wait (an append on a network event loop).
     */
    <T, E extends Exception> T changeIfFree(Locked<T, E> body) throws E {
        if (!lock.tryLock()) {
            return null;
        }
        try {
            try {
                return body.run(state);
            } finally {
                view = state.view();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Marks the partition closed and runs {@code body} under the lock, once: false (body not run) when
     * it was already closed. Nothing is published: readers learn of the close from the flag.
     */
    boolean close(Locked<Void, RuntimeException> body) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            body.run(state);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The latest published view. Lock-free. */
    PartitionView view() {
        return view;
    }

    /** Fails the partition: every later append and flush throws {@code e} until it is reopened. */
    void fail(StorageException e) {
        sticky = e;
    }

    /** The sticky failure, or null. */
    StorageException sticky() {
        return sticky;
    }

    boolean closed() {
        return closed;
    }

    /** Neither closed nor failed. */
    boolean healthy() {
        return !closed && sticky == null;
    }

    /** The sticky failure while the partition is open (after close there is nothing to report). Lock-free. */
    Optional<StorageException> failure() {
        return closed ? Optional.empty() : Optional.ofNullable(sticky);
    }

    /** Throws CLOSED, or the sticky failure. */
    void ensureOpen() {
        if (closed) {
            throw new StorageException(StorageException.Kind.CLOSED, id + " is closed");
        }
        StorageException s = sticky;
        if (s != null) {
            throw s;
        }
    }

    long requestedFlushSeq() {
        return requestedFlushSeq;
    }

    /**
     * Counts {@code records} appended toward the flush interval; when it is reached, asks for a flush
     * (a new flush sequence) and returns true. {@code state} is the proof that the caller holds the lock.
     */
    boolean countTowardFlush(GuardedState state, long records, long flushInterval) {
        state.pendingMessages += records;
        if (state.pendingMessages < flushInterval) {
            return false;
        }
        state.pendingMessages = 0;
        requestedFlushSeq++;
        return true;
    }
}
