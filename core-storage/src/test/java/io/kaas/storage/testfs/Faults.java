package io.kaas.storage.testfs;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The fault switches of one {@link FaultyFileSystem}. Each can be armed and cleared at any time from
 * any thread; one rule per kind (arming again replaces it). Channels consult them on every call.
 * Faults apply to the path a channel was opened with (a file renamed while open keeps its old name
 * for matching).
 */
public final class Faults {

    private record FsyncFailure(Scope scope, Repeat repeat, AtomicBoolean spent) {}

    private record FsyncHang(Scope scope, FsyncGate gate) {}

    private record ShortWrite(Scope scope, int maxBytes, AtomicBoolean spent) {}

    private record ReadFailure(Scope scope, Repeat repeat, AtomicBoolean spent) {}

    /** Free space left; {@code remaining < 0} means unlimited. Replaced whole so mode and count agree. */
    private record Space(long remaining, DiskFullMode mode) {}

    private static final Space UNLIMITED = new Space(-1, DiskFullMode.FAIL_WHOLE_WRITE);

    private final AtomicReference<FsyncFailure> fsyncFailure = new AtomicReference<>();
    private final AtomicReference<FsyncHang> fsyncHang = new AtomicReference<>();
    private final AtomicReference<ShortWrite> shortWrite = new AtomicReference<>();
    private final AtomicReference<ReadFailure> readFailure = new AtomicReference<>();
    private final AtomicReference<Space> space = new AtomicReference<>(UNLIMITED);

    /** {@code force()} on matching paths (files and directories) throws IOException; nothing becomes durable. */
    public void failFsync(Scope scope, Repeat repeat) {
        fsyncFailure.set(new FsyncFailure(scope, repeat, new AtomicBoolean()));
    }

    public void clearFsyncFailure() {
        fsyncFailure.set(null);
    }

    /**
     * {@code force()} on matching paths blocks until the returned gate is released. Counted before
     * blocking, so {@link FaultyFileSystem#forceCount} sees hung calls.
     */
    public FsyncGate hangFsync(Scope scope) {
        FsyncGate gate = new FsyncGate();
        FsyncHang previous = fsyncHang.getAndSet(new FsyncHang(scope, gate));
        if (previous != null) {
            previous.gate().release();
        }
        return gate;
    }

    /** Releases any hung fsync and stops hanging new ones. */
    public void clearFsyncHang() {
        FsyncHang previous = fsyncHang.getAndSet(null);
        if (previous != null) {
            previous.gate().release();
        }
    }

    /** The next matching write of more than {@code maxBytes} bytes writes only {@code maxBytes} and returns that count. */
    public void shortWriteOnce(Scope scope, int maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes " + maxBytes + " < 0");
        }
        shortWrite.set(new ShortWrite(scope, maxBytes, new AtomicBoolean()));
    }

    public void clearShortWrite() {
        shortWrite.set(null);
    }

    /**
     * The disk fills after {@code bytes} more bytes are written, counting every file of this
     * filesystem; then writes fail with "No space left on device" as {@code mode} says.
     */
    public void diskFullAfter(long bytes, DiskFullMode mode) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes " + bytes + " < 0");
        }
        space.set(new Space(bytes, mode));
    }

    /** Space is freed: writes succeed again. */
    public void spaceReturns() {
        space.set(UNLIMITED);
    }

    /** Free bytes left before the disk is full, or -1 when unlimited. */
    public long remainingSpace() {
        return space.get().remaining();
    }

    /** Reads ({@code read}, {@code transferTo}, read-only {@code map}) of matching paths throw IOException. */
    public void failReads(Scope scope, Repeat repeat) {
        readFailure.set(new ReadFailure(scope, repeat, new AtomicBoolean()));
    }

    public void clearReadFailure() {
        readFailure.set(null);
    }

    /** Disarms every fault; hung fsyncs are released and space returns. */
    public void clearAll() {
        clearFsyncFailure();
        clearFsyncHang();
        clearShortWrite();
        clearReadFailure();
        spaceReturns();
    }

    // ---- hooks called by the channels ----

    void beforeForce(Path path) throws IOException {
        FsyncHang hang = fsyncHang.get();
        if (hang != null && hang.scope().matches(path)) {
            hang.gate().pass(path);
        }
        FsyncFailure failure = fsyncFailure.get();
        if (failure != null && failure.scope().matches(path) && fires(failure.repeat(), failure.spent())) {
            throw new FileSystemException(path.toString(), null, "fsync failed: Input/output error (injected)");
        }
    }

    void beforeRead(Path path, long position) throws IOException {
        ReadFailure failure = readFailure.get();
        if (failure != null && failure.scope().matches(path) && fires(failure.repeat(), failure.spent())) {
            throw new FileSystemException(
                    path.toString(), null, "read at byte " + position + " failed: Input/output error (injected)");
        }
    }

    /** How much of a write of {@code requested} bytes may land, and whether it then fails. */
    record WriteAllowance(int bytes, IOException failure) {}

    WriteAllowance beforeWrite(Path path, int requested) {
        int limit = requested;
        ShortWrite shortOne = shortWrite.get();
        if (shortOne != null
                && limit > shortOne.maxBytes()
                && shortOne.scope().matches(path)
                && shortOne.spent().compareAndSet(false, true)) {
            limit = shortOne.maxBytes();
        }
        while (true) {
            Space now = space.get();
            if (now.remaining() < 0 || limit <= now.remaining()) {
                if (now.remaining() < 0 || space.compareAndSet(now, new Space(now.remaining() - limit, now.mode()))) {
                    return new WriteAllowance(limit, null);
                }
                continue;
            }
            IOException full = new FileSystemException(path.toString(), null, "No space left on device (injected)");
            int fits = (int) now.remaining();
            switch (now.mode()) {
                case FAIL_WHOLE_WRITE:
                    return new WriteAllowance(0, full);
                case WRITE_PREFIX_THEN_THROW:
                    if (space.compareAndSet(now, new Space(0, now.mode()))) {
                        return new WriteAllowance(fits, full);
                    }
                    break;
                case SHORT_WRITE:
                    if (fits == 0) {
                        return new WriteAllowance(0, full);
                    }
                    if (space.compareAndSet(now, new Space(0, now.mode()))) {
                        return new WriteAllowance(fits, null);
                    }
                    break;
                default:
                    throw new AssertionError(now.mode());
            }
        }
    }

    /** Releases hung fsyncs with an error: the machine they were waiting on is gone. */
    void powerLost(String reason) {
        FsyncHang hang = fsyncHang.get();
        if (hang != null) {
            hang.gate().fail(reason);
        }
    }

    private static boolean fires(Repeat repeat, AtomicBoolean spent) {
        return repeat == Repeat.ALWAYS || spent.compareAndSet(false, true);
    }
}
