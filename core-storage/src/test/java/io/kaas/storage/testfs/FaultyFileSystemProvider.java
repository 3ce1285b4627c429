package io.kaas.storage.testfs;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.spi.FileSystemProvider;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The provider of one {@link FaultyFileSystem}: every operation unwraps to the delegate's provider,
 * after checking power, and keeps the {@link DurableImage} in step with creates, renames and unlinks.
 * Not installed: it is reached only through paths of its filesystem.
 */
final class FaultyFileSystemProvider extends FileSystemProvider {
    private final FaultyFileSystem fs;

    FaultyFileSystemProvider(FaultyFileSystem fs) {
        this.fs = fs;
    }

    private FileSystemProvider delegate() {
        return fs.delegate().provider();
    }

    /** The absolute, normalized delegate path: one spelling per file for the image and fault scopes. */
    private Path unwrap(Path path) {
        if (path instanceof FaultyPath fp && fp.getFileSystem() == fs) {
            return fp.delegate().toAbsolutePath().normalize();
        }
        throw new ProviderMismatchException("not a path of this FaultyFileSystem: " + path);
    }

    @Override
    public String getScheme() {
        return "faulty";
    }

    @Override
    public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
        throw new UnsupportedOperationException("use FaultyFileSystem.wrap");
    }

    @Override
    public FileSystem getFileSystem(URI uri) {
        throw new UnsupportedOperationException("use FaultyFileSystem.wrap");
    }

    @Override
    public Path getPath(URI uri) {
        throw new UnsupportedOperationException("use FaultyFileSystem.getPath");
    }

    @Override
    public FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        fs.ensurePowered();
        Path target = unwrap(path);
        boolean writable = options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND);
        if (!writable && Files.isDirectory(target)) {
            return new DirectorySyncChannel(fs, target, fs.image().directory(target));
        }
        DurableImage.OpenedFile opened =
                fs.image().open(target, options, () -> delegate().newFileChannel(target, options, attrs));
        FaultyFileChannel channel = new FaultyFileChannel(
                fs, target, opened.channel(), opened.node(), options.contains(StandardOpenOption.APPEND));
        fs.channelOpened(channel);
        return channel;
    }

    @Override
    public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        return newFileChannel(path, options, attrs);
    }

    @Override
    public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
            throws IOException {
        fs.ensurePowered();
        unwrap(dir); // checks the provider
        // The path as given, so a relative directory lists relative entries, as the delegate does.
        DirectoryStream<Path> listing = delegate()
                .newDirectoryStream(((FaultyPath) dir).delegate(), entry -> filter.accept(fs.wrapPath(entry)));
        return new DirectoryStream<>() {
            @Override
            public Iterator<Path> iterator() {
                Iterator<Path> entries = listing.iterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return entries.hasNext();
                    }

                    @Override
                    public Path next() {
                        return fs.wrapPath(entries.next());
                    }
                };
            }

            @Override
            public void close() throws IOException {
                listing.close();
            }
        };
    }

    @Override
    public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
        fs.ensurePowered();
        Path target = unwrap(dir);
        fs.image().createDirectory(target, () -> delegate().createDirectory(target, attrs));
    }

    @Override
    public void delete(Path path) throws IOException {
        fs.ensurePowered();
        Path target = unwrap(path);
        fs.image().delete(target, () -> delegate().delete(target));
    }

    /** Copies through this filesystem's own channels, so the copy is fault-checked and not yet durable. */
    @Override
    public void copy(Path source, Path target, CopyOption... options) throws IOException {
        fs.ensurePowered();
        boolean replace = Arrays.asList(options).contains(StandardCopyOption.REPLACE_EXISTING);
        if (Files.exists(unwrap(target), LinkOption.NOFOLLOW_LINKS)) {
            if (!replace) {
                throw new FileAlreadyExistsException(target.toString());
            }
            delete(target);
        }
        if (Files.isDirectory(unwrap(source))) {
            createDirectory(target);
            return;
        }
        try (FileChannel in = newFileChannel(source, Set.of(StandardOpenOption.READ));
                FileChannel out =
                        newFileChannel(target, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW))) {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            while (in.read(buffer) >= 0) {
                buffer.flip();
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
                buffer.clear();
            }
        }
    }

    @Override
    public void move(Path source, Path target, CopyOption... options) throws IOException {
        fs.ensurePowered();
        Path from = unwrap(source);
        Path to = unwrap(target);
        fs.image().move(from, to, () -> delegate().move(from, to, options));
    }

    @Override
    public boolean isSameFile(Path path, Path path2) throws IOException {
        fs.ensurePowered();
        if (!(path2 instanceof FaultyPath other) || other.getFileSystem() != fs) {
            return false;
        }
        return delegate().isSameFile(unwrap(path), unwrap(path2));
    }

    @Override
    public boolean isHidden(Path path) throws IOException {
        fs.ensurePowered();
        return delegate().isHidden(unwrap(path));
    }

    @Override
    public FileStore getFileStore(Path path) throws IOException {
        fs.ensurePowered();
        return delegate().getFileStore(unwrap(path));
    }

    @Override
    public void checkAccess(Path path, AccessMode... modes) throws IOException {
        fs.ensurePowered();
        delegate().checkAccess(unwrap(path), modes);
    }

    /**
     * The delegate's view behind a proxy that checks power on every call, so code left running in
     * the pre-crash world cannot change timestamps in the rebooted one.
     */
    @Override
    public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
        V view = delegate().getFileAttributeView(unwrap(path), type, options);
        if (view == null || !type.isInterface()) {
            return view;
        }
        InvocationHandler powered = (proxy, method, args) -> {
            if (Arrays.asList(method.getExceptionTypes()).contains(IOException.class)) {
                fs.ensurePowered();
            }
            try {
                return method.invoke(view, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, powered));
    }

    @Override
    public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
            throws IOException {
        fs.ensurePowered();
        return delegate().readAttributes(unwrap(path), type, options);
    }

    @Override
    public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
        fs.ensurePowered();
        return delegate().readAttributes(unwrap(path), attributes, options);
    }

    @Override
    public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
        fs.ensurePowered();
        delegate().setAttribute(unwrap(path), attribute, value, options);
    }
}
