package io.kaas.storage.testfs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.io.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AccessMode;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With no fault armed the wrapper behaves as the filesystem it wraps, for everything the engine uses. */
class FaultyFileSystemTest {
    private FaultyFileSystem fs;
    private Path dir;

    @BeforeEach
    void setUp() throws IOException {
        fs = FaultyFileSystem.wrap(Jimfs.newFileSystem(Configuration.unix()));
        dir = Files.createDirectories(fs.root().resolve("data/topic/0"));
    }

    @AfterEach
    void tearDown() throws IOException {
        fs.close();
    }

    @Test
    void pathsAndChannelsBelongToTheWrapper() throws IOException {
        Path file = dir.resolve("a.log");
        assertThat(file.getFileSystem()).isSameAs(fs);
        assertThat(file.getParent()).isEqualTo(dir);
        assertThat(file.toString()).isEqualTo("/data/topic/0/a.log");
        try (FileChannel ch = FileChannel.open(file, CREATE, WRITE)) {
            assertThat(ch).isInstanceOf(FaultyFileChannel.class);
        }
        assertThat(fs.getPath("/data", "topic").resolve("0")).isEqualTo(dir);
        assertThat(fs.pathOf(Path.of("/data/topic/0"))).isEqualTo(dir);
    }

    @Test
    void writesReadsAppendsAndTruncates() throws IOException {
        Path file = dir.resolve("a.log");
        try (FileChannel ch = FileChannel.open(file, CREATE, WRITE)) {
            assertThat(ch.write(ByteBuffer.wrap("hello".getBytes(UTF_8)))).isEqualTo(5);
            ch.write(ByteBuffer.wrap("J".getBytes(UTF_8)), 0);
            assertThat(ch.position()).isEqualTo(5);
            ch.force(true);
        }
        try (FileChannel ch = FileChannel.open(file, APPEND)) {
            ch.write(new ByteBuffer[] {ByteBuffer.wrap(" wor".getBytes(UTF_8)), ByteBuffer.wrap("ld".getBytes(UTF_8))});
        }
        assertThat(Files.readString(file)).isEqualTo("Jello world");
        try (FileChannel ch = FileChannel.open(file, READ, WRITE)) {
            ch.truncate(5);
            ByteBuffer buf = ByteBuffer.allocate(10);
            assertThat(ch.read(buf, 0)).isEqualTo(5);
        }
        assertThat(Files.size(file)).isEqualTo(5);
        try (FileChannel ch = FileChannel.open(file, WRITE, TRUNCATE_EXISTING)) {
            assertThat(ch.size()).isZero();
        }
        Files.write(file, "x".getBytes(UTF_8));
        assertThat(Files.readAllBytes(file)).containsExactly('x');
    }

    @Test
    void listsDirectoriesWithFilters() throws IOException {
        for (String name : List.of("1.log", "1.index", "2.log", "manifest.json")) {
            Files.createFile(dir.resolve(name));
        }
        List<String> logs = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*.log")) {
            stream.forEach(p -> {
                assertThat(p.getFileSystem()).isSameAs(fs);
                logs.add(p.getFileName().toString());
            });
        }
        assertThat(logs).containsExactlyInAnyOrder("1.log", "2.log");
        try (Stream<Path> all = Files.list(dir)) {
            assertThat(all.filter(p -> p.toString().endsWith(".json"))).containsExactly(dir.resolve("manifest.json"));
        }
        try (Stream<Path> tree = Files.walk(fs.root().resolve("data"))) {
            assertThat(tree).contains(dir.resolve("1.index"));
        }
    }

    @Test
    void movesDeletesAndCopies() throws IOException {
        Path a = Files.writeString(dir.resolve("a"), "A");
        Path b = Files.writeString(dir.resolve("b"), "B");
        assertThatThrownBy(() -> Files.move(a, b)).isInstanceOf(FileAlreadyExistsException.class);
        Files.move(a, b, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.exists(a)).isFalse();
        assertThat(Files.readString(b)).isEqualTo("A");
        Files.copy(b, a);
        assertThat(Files.readString(a)).isEqualTo("A");
        Files.delete(a);
        assertThat(Files.deleteIfExists(a)).isFalse();
        assertThatThrownBy(() -> Files.delete(a)).isInstanceOf(NoSuchFileException.class);
        Path moved = fs.root().resolve("data/moved");
        Files.move(dir, moved);
        assertThat(Files.readString(moved.resolve("b"))).isEqualTo("A");
    }

    @Test
    void attributesAccessAndIdentity() throws IOException {
        Path file = Files.writeString(dir.resolve("a"), "abc");
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
        assertThat(attrs.size()).isEqualTo(3);
        assertThat(attrs.isRegularFile()).isTrue();
        FileTime old = FileTime.fromMillis(1_000_000L);
        Files.setLastModifiedTime(file, old);
        assertThat(Files.getLastModifiedTime(file)).isEqualTo(old);
        Files.getFileAttributeView(file, BasicFileAttributeView.class)
                .setTimes(FileTime.fromMillis(2_000_000L), null, null);
        assertThat(Files.getLastModifiedTime(file).toMillis()).isEqualTo(2_000_000L);
        assertThat(Files.getAttribute(file, "size")).isEqualTo(3L);
        fs.provider().checkAccess(file, AccessMode.READ);
        assertThat(Files.isSameFile(file, dir.resolve("../0/a"))).isTrue();
        assertThat(Files.isDirectory(dir)).isTrue();
        assertThat(Files.exists(dir.resolve("nope"))).isFalse();
    }

    @Test
    void directoryOpensAsAChannelOnlyToBeSynced() throws IOException {
        try (FileChannel ch = FileChannel.open(dir, READ)) {
            ch.force(true);
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1))).hasMessageContaining("Is a directory");
            assertThatThrownBy(() -> ch.write(ByteBuffer.allocate(1))).hasMessageContaining("Is a directory");
        }
        assertThat(fs.forceCounts().of(dir)).isEqualTo(1);
        AtomicFile.write(dir.resolve("manifest.json"), "{}".getBytes(UTF_8));
        assertThat(fs.forceCounts().of(dir)).isEqualTo(2);
        assertThat(fs.forceCounts().of(dir.resolve("manifest.json.tmp"))).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("manifest.json"))).isEqualTo("{}");
    }

    @Test
    void locksReportTheWrappingChannel() throws IOException {
        try (FileChannel ch = FileChannel.open(dir.resolve(".lock"), CREATE, WRITE)) {
            FileLock lock = ch.tryLock();
            assertThat(lock).isNotNull();
            assertThat(lock.channel()).isSameAs(ch);
            assertThat(lock.isValid()).isTrue();
            lock.release();
            assertThat(lock.isValid()).isFalse();
        }
    }

    @Test
    void reportsOpenChannelsSoTestsCanCatchLeaks() throws IOException {
        Path file = dir.resolve("a.log");
        FileChannel ch = FileChannel.open(file, CREATE, WRITE);
        assertThat(fs.openFiles()).containsExactly(file);
        ch.close();
        assertThat(fs.openFiles()).isEmpty();
    }

    @Test
    void refusesWritableMmapWhichWouldBypassTheFaults() throws IOException {
        try (FileChannel ch = FileChannel.open(dir.resolve("a"), CREATE, READ, WRITE)) {
            assertThatThrownBy(() -> ch.map(FileChannel.MapMode.READ_WRITE, 0, 8))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Test
    void refusesToWrapTheWholeDefaultFilesystem() {
        assertThatThrownBy(() -> FaultyFileSystem.wrap(java.nio.file.FileSystems.getDefault()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void wrapsADirectoryOfTheDefaultFilesystem(@TempDir Path temp) throws IOException {
        try (FaultyFileSystem real = FaultyFileSystem.wrap(temp)) {
            Path sub = Files.createDirectories(real.root().resolve("t/0"));
            Path file = sub.resolve("a.log");
            Files.writeString(file, "on disk");
            AtomicFile.fsyncDirectory(sub); // a real directory fsync happens underneath
            assertThat(real.forceCounts().of(sub)).isEqualTo(1);
            assertThat(Files.readString(temp.resolve("t/0/a.log"))).isEqualTo("on disk");
        }
        assertThat(temp).isDirectory(); // closing the wrapper leaves the default filesystem alone
    }
}
