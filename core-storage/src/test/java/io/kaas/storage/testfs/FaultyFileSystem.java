package io.kaas.storage.testfs;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.ClosedFileSystemException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.WatchService;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A {@link FileSystem} over a delegate (jimfs, or a directory of the default filesystem) that injects
 * storage faults and can simulate a power cut. Use its paths exactly like the delegate's:
 * {@code Files.*} and {@code FileChannel.open} route through it.
 *
 * <pre>{@code
 * FaultyFileSystem fs = FaultyFileSystem.onJimfs(); // or wrap(Jimfs.newFileSystem(...)), wrap(tempDir)
 * Path data = Files.createDirectories(fs.root().resolve("data"));
 * fs.faults().failFsync(Scope.fileNameEndsWith(".log"), Repeat.ONCE);
 * ...
 * FaultyFileSystem rebooted = fs.powerCut();   // only what was fsynced survives
 * Path dataAgain = rebooted.pathOf(data);
 * }</pre>
 *
 * <p>Durability is modelled for the tracked directories (every root of a wrapped filesystem, or the
 * wrapped directory): see {@link DurableImage} and the package README. Every change to them must
 * go through this filesystem; changes made to the delegate directly confuse the image.
 *
 * <p>Thread-safe. Owned by the test that created it. When {@link #wrap(FileSystem)} was given the
 * delegate, {@link #close()} of this instance or of any instance a power cut led to closes it, so a
 * test may close whichever instance it holds last (or the first one, in a try-with-resources).
 */
public final class FaultyFileSystem extends FileSystem {
    private final FileSystem delegate;
    private final List<Path> trackedRoots;
    private final boolean ownsDelegate;
    private final FaultyFileSystemProvider provider = new FaultyFileSystemProvider(this);
    private final Faults faults = new Faults();
    private final ForceCounts forceCounts = new ForceCounts();
    private final DurableImage image;
    private final Set<FaultyFileChannel> openChannels = ConcurrentHashMap.newKeySet();
    private final Object powerLock = new Object();
    private volatile String powerLost; // null while powered
    private volatile boolean closed;

    private FaultyFileSystem(FileSystem delegate, List<Path> trackedRoots, boolean ownsDelegate) throws IOException {
        this.delegate = delegate;
        this.trackedRoots = List.copyOf(trackedRoots);
        this.ownsDelegate = ownsDelegate;
        this.image = DurableImage.scan(this.trackedRoots);
    }

    /** A fresh unix-style jimfs, wrapped: the usual start of a test. */
    public static FaultyFileSystem onJimfs() throws IOException {
        return wrap(Jimfs.newFileSystem(Configuration.unix()));
    }

    /**
     * Wraps a whole filesystem (jimfs); everything in it now counts as durable, and closing the
     * wrapper closes it. The default filesystem cannot be wrapped whole: use {@link #wrap(Path)}.
     */
    public static FaultyFileSystem wrap(FileSystem delegate) throws IOException {
        if (delegate == FileSystems.getDefault()) {
            throw new IllegalArgumentException(
                    "wrap a directory of the default filesystem (wrap(Path)), not the whole disk");
        }
        List<Path> roots = new ArrayList<>();
        delegate.getRootDirectories().forEach(roots::add);
        return new FaultyFileSystem(delegate, roots, true);
    }

    /**
     * Wraps the filesystem of {@code directory} (e.g. a JUnit {@code @TempDir}), tracking durability
     * only below it; {@link #root()} is that directory. Closing the wrapper leaves the delegate open.
     */
    public static FaultyFileSystem wrap(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            throw new IOException("not a directory: " + directory);
        }
        Path root = directory.toAbsolutePath().normalize();
        return new FaultyFileSystem(root.getFileSystem(), List.of(root), false);
    }

    /** The first tracked directory: the delegate's root, or the wrapped directory. */
    public Path root() {
        return wrapPath(trackedRoots.get(0));
    }

    /** This instance's path at the location of {@code other}, e.g. a path of the instance before a power cut. */
    public Path pathOf(Path other) {
        return wrapPath(delegate.getPath(other.toString()));
    }

    public Faults faults() {
        return faults;
    }

    public ForceCounts forceCounts() {
        return forceCounts;
    }

    /** Paths of channels (not directory-sync stubs) opened through this instance and not yet closed. */
    public List<Path> openFiles() {
        return openChannels.stream().map(c -> wrapPath(c.path())).sorted().collect(Collectors.toList());
    }

    public boolean isPowered() {
        return powerLost == null;
    }

    /** {@link #powerCut(TornTail, long)} dropping every unsynced byte. */
    public FaultyFileSystem powerCut() throws IOException {
        return powerCut(TornTail.DROP, 0);
    }

    /**
     * Simulates losing power and rebooting. This instance dies: every later call on it, its paths
     * and its open channels throws {@link PowerLostException}, and hung fsyncs fail. The delegate is
     * rewritten to the durable image (each file its last-fsynced content, each directory its entries
     * as of its last fsync; unsynced appends torn as {@code tail} says, with {@code seed} choosing
     * how much) and a new instance over it, with no faults armed, is returned.
     */
    public FaultyFileSystem powerCut(TornTail tail, long seed) throws IOException {
        synchronized (powerLock) {
            ensurePowered();
            powerLost = "power cut at " + Instant.now();
            faults.powerLost(powerLost);
            for (FaultyFileChannel channel : openChannels) {
                channel.abandon();
            }
            Map<Path, DurableImage.DirPlan> plans = image.planPowerCut(tail, new Random(seed));
            for (Map.Entry<Path, DurableImage.DirPlan> plan : plans.entrySet()) {
                DurableImage.restore(plan.getKey(), plan.getValue());
            }
            return new FaultyFileSystem(delegate, trackedRoots, ownsDelegate);
        }
    }

    void ensurePowered() throws IOException {
        if (closed) {
            throw new ClosedFileSystemException();
        }
        String lost = powerLost;
        if (lost != null) {
            throw new PowerLostException(
                    "FaultyFileSystem lost power (" + lost + "); use the instance powerCut() returned");
        }
    }

    FileSystem delegate() {
        return delegate;
    }

    DurableImage image() {
        return image;
    }

    Path wrapPath(Path delegatePath) {
        return new FaultyPath(this, delegatePath);
    }

    void channelOpened(FaultyFileChannel channel) {
        openChannels.add(channel);
    }

    void channelClosed(FaultyFileChannel channel) {
        openChannels.remove(channel);
    }

    @Override
    public FaultyFileSystemProvider provider() {
        return provider;
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        faults.clearFsyncHang();
        if (ownsDelegate) {
            delegate.close();
        }
    }

    @Override
    public boolean isOpen() {
        return !closed && delegate.isOpen();
    }

    @Override
    public boolean isReadOnly() {
        return delegate.isReadOnly();
    }

    @Override
    public String getSeparator() {
        return delegate.getSeparator();
    }

    @Override
    public Iterable<Path> getRootDirectories() {
        List<Path> roots = new ArrayList<>();
        delegate.getRootDirectories().forEach(r -> roots.add(wrapPath(r)));
        return roots;
    }

    @Override
    public Iterable<FileStore> getFileStores() {
        return delegate.getFileStores();
    }

    @Override
    public Set<String> supportedFileAttributeViews() {
        return delegate.supportedFileAttributeViews();
    }

    @Override
    public Path getPath(String first, String... more) {
        return wrapPath(delegate.getPath(first, more));
    }

    @Override
    public PathMatcher getPathMatcher(String syntaxAndPattern) {
        PathMatcher matcher = delegate.getPathMatcher(syntaxAndPattern);
        return path -> path instanceof FaultyPath fp && matcher.matches(fp.delegate());
    }

    @Override
    public UserPrincipalLookupService getUserPrincipalLookupService() {
        return delegate.getUserPrincipalLookupService();
    }

    @Override
    public WatchService newWatchService() {
        throw new UnsupportedOperationException("FaultyFileSystem has no watch service");
    }
}
