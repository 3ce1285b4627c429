package io.kaas.storage.testfs;

import java.io.IOException;
import java.net.URI;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Objects;

/**
 * A path of a {@link FaultyFileSystem}: a delegate path plus the filesystem, so {@code Files.*} and
 * {@code FileChannel.open} route through the fault-injecting provider. {@link #toUri()} gives the
 * delegate's URI (a path built from it bypasses the faults) and {@link #toFile()} is unsupported.
 */
final class FaultyPath implements Path {
    private final FaultyFileSystem fs;
    private final Path delegate;

    FaultyPath(FaultyFileSystem fs, Path delegate) {
        this.fs = Objects.requireNonNull(fs);
        this.delegate = Objects.requireNonNull(delegate);
    }

    Path delegate() {
        return delegate;
    }

    private Path wrap(Path p) {
        return p == null ? null : new FaultyPath(fs, p);
    }

    private Path unwrap(Path other) {
        if (other instanceof FaultyPath fp) {
            return fp.delegate;
        }
        throw new ProviderMismatchException("not a path of this FaultyFileSystem: " + other);
    }

    @Override
    public FaultyFileSystem getFileSystem() {
        return fs;
    }

    @Override
    public boolean isAbsolute() {
        return delegate.isAbsolute();
    }

    @Override
    public Path getRoot() {
        return wrap(delegate.getRoot());
    }

    @Override
    public Path getFileName() {
        return wrap(delegate.getFileName());
    }

    @Override
    public Path getParent() {
        return wrap(delegate.getParent());
    }

    @Override
    public int getNameCount() {
        return delegate.getNameCount();
    }

    @Override
    public Path getName(int index) {
        return wrap(delegate.getName(index));
    }

    @Override
    public Path subpath(int beginIndex, int endIndex) {
        return wrap(delegate.subpath(beginIndex, endIndex));
    }

    @Override
    public boolean startsWith(Path other) {
        return other instanceof FaultyPath fp && fp.fs == fs && delegate.startsWith(fp.delegate);
    }

    @Override
    public boolean startsWith(String other) {
        return delegate.startsWith(other);
    }

    @Override
    public boolean endsWith(Path other) {
        return other instanceof FaultyPath fp && fp.fs == fs && delegate.endsWith(fp.delegate);
    }

    @Override
    public boolean endsWith(String other) {
        return delegate.endsWith(other);
    }

    @Override
    public Path normalize() {
        return wrap(delegate.normalize());
    }

    @Override
    public Path resolve(Path other) {
        return wrap(delegate.resolve(unwrap(other)));
    }

    @Override
    public Path resolve(String other) {
        return wrap(delegate.resolve(other));
    }

    @Override
    public Path resolveSibling(Path other) {
        return wrap(delegate.resolveSibling(unwrap(other)));
    }

    @Override
    public Path resolveSibling(String other) {
        return wrap(delegate.resolveSibling(other));
    }

    @Override
    public Path relativize(Path other) {
        return wrap(delegate.relativize(unwrap(other)));
    }

    @Override
    public URI toUri() {
        return delegate.toUri();
    }

    @Override
    public Path toAbsolutePath() {
        return wrap(delegate.toAbsolutePath());
    }

    @Override
    public Path toRealPath(LinkOption... options) throws IOException {
        fs.ensurePowered();
        return wrap(delegate.toRealPath(options));
    }

    @Override
    public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) {
        throw new UnsupportedOperationException("FaultyFileSystem has no watch service");
    }

    @Override
    public int compareTo(Path other) {
        return delegate.compareTo(unwrap(other));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FaultyPath fp && fp.fs == fs && fp.delegate.equals(delegate);
    }

    @Override
    public int hashCode() {
        return delegate.hashCode();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
