package io.kaas.storage.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Group commit for whole-file state in one directory (one file per key, each rewrite carrying the whole
 * state, so the newest content of a file covers every change before it). {@link #write} hands over the
 * content and returns at once; one owned writer thread takes everything handed over since its last round,
 * writes and fsyncs each file's newest content as {@code name.tmp}, renames each into place, fsyncs the
 * directory once, and only then completes the futures of the round. So N changes made while a round is in
 * flight share the next round's fsyncs, and whoever answers a client after its future completes answers
 * only for durable state. After a crash each file holds the content of a completed round or a later one
 * handed over, never a mix, and a deleted file stays deleted once its future completed.
 *
 * <p>A failed round fails its futures and nothing of it is promised; the next round writes fresh
 * {@code .tmp} files from scratch (no retried fsync of pages the kernel may have dropped), so it may
 * succeed. Thread-safe. {@link #close} finishes what was handed over, then stops the thread.
 */
public final class CoalescingStateFiles implements AutoCloseable {
    /**
     * What one file is to become: {@code content}'s bytes, or deleted when null; and who waits for it. Encoded only
     * when written (or read): of several contents handed over for one file within a round, only the newest is.
     */
    private record Pending(Supplier<byte[]> content, List<CompletableFuture<Void>> waiters) {}

    private final Path dir;
    private final Thread writer;
    private final Object lock = new Object();
    private final AtomicLong rounds = new AtomicLong();
    private LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();
    private Map<String, Pending> inFlight = Map.of();
    private boolean closed;

    /** @param threadName the writer thread's name ({@code kaas-...}) */
    public CoalescingStateFiles(Path dir, String threadName) {
        this.dir = dir;
        this.writer = new Thread(this::run, threadName);
        writer.setDaemon(true);
        writer.start();
    }

    public Path dir() {
        return dir;
    }

    /** Rewrites {@code fileName} with {@code content}; completes once it is durable (fails if it cannot be). */
    public CompletableFuture<Void> write(String fileName, byte[] content) {
        byte[] copy = content.clone();
        return handOver(fileName, () -> copy);
    }

    /**
     * {@link #write} of content encoded by the writer thread, only if it is still the newest when its round comes:
     * {@code encode} must read nothing that changes after the call (an immutable snapshot of the state).
     */
    public CompletableFuture<Void> write(String fileName, Supplier<byte[]> encode) {
        return handOver(fileName, encode);
    }

    /** Removes {@code fileName}; completes once the removal is durable. */
    public CompletableFuture<Void> delete(String fileName) {
        return handOver(fileName, null);
    }

    /**
     * The file's newest content: what was handed over last (durable or not yet), else what is on disk; empty when
     * there is none or its deletion was handed over. A reader thus never sees a state older than one it was told of.
     */
    public Optional<byte[]> read(String fileName) throws IOException {
        synchronized (lock) {
            Pending p = pending.get(fileName);
            if (p == null) {
                p = inFlight.get(fileName);
            }
            if (p != null) {
                return Optional.ofNullable(p.content()).map(c -> c.get().clone());
            }
        }
        try {
            return Optional.of(Files.readAllBytes(dir.resolve(fileName)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** Whether {@link #read} would find the file, without reading it. */
    public boolean exists(String fileName) {
        synchronized (lock) {
            Pending p = pending.get(fileName);
            if (p == null) {
                p = inFlight.get(fileName);
            }
            if (p != null) {
                return p.content() != null;
            }
        }
        return Files.exists(dir.resolve(fileName));
    }

    /** Rounds written so far (each: one fsync per file in it, one of the directory). */
    public long rounds() {
        return rounds.get();
    }

    private CompletableFuture<Void> handOver(String fileName, Supplier<byte[]> content) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (lock) {
            if (closed) {
                f.completeExceptionally(new StorageException(
                        StorageException.Kind.CLOSED, dir.resolve(fileName) + ": state writer closed"));
                return f;
            }
            Pending before = pending.get(fileName);
            List<CompletableFuture<Void>> waiters = before == null ? new ArrayList<>(2) : before.waiters();
            waiters.add(f);
            pending.put(fileName, new Pending(content, waiters));
            lock.notifyAll();
        }
        return f;
    }

    private void run() {
        while (true) {
            Map<String, Pending> round;
            synchronized (lock) {
                while (pending.isEmpty() && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        closed = true;
                    }
                }
                if (pending.isEmpty()) {
                    return;
                }
                round = pending;
                inFlight = round;
                pending = new LinkedHashMap<>();
            }
            RuntimeException failure = null;
            try {
                commit(round);
                rounds.incrementAndGet();
            } catch (IOException e) {
                failure = new StorageException(
                        StorageException.Kind.IO, dir + ": cannot write state: " + IoFailure.describe(e), e);
            } catch (RuntimeException e) {
                failure = e;
            }
            synchronized (lock) {
                inFlight = Map.of();
            }
            for (Pending p : round.values()) {
                for (CompletableFuture<Void> f : p.waiters()) {
                    if (failure == null) {
                        f.complete(null);
                    } else {
                        f.completeExceptionally(failure);
                    }
                }
            }
        }
    }

    private void commit(Map<String, Pending> round) throws IOException {
        AtomicFile.createDirectories(dir);
        Map<Path, Path> renames = new LinkedHashMap<>();
        for (Map.Entry<String, Pending> e : round.entrySet()) {
            if (e.getValue().content() != null) {
                Path target = dir.resolve(e.getKey());
                renames.put(
                        AtomicFile.writeTemporary(target, e.getValue().content().get()), target);
            }
        }
        for (Map.Entry<String, Pending> e : round.entrySet()) {
            Path target = dir.resolve(e.getKey());
            if (e.getValue().content() == null) {
                Files.deleteIfExists(target);
            }
        }
        for (Map.Entry<Path, Path> r : renames.entrySet()) {
            AtomicFile.replace(r.getKey(), r.getValue());
        }
        AtomicFile.fsyncDirectory(dir);
    }

    /** Writes what was handed over, then stops the writer thread. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        try {
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
