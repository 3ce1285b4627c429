package io.kaas.storage.testfs;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.io.AtomicFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Random sequences of writes, truncates, fsyncs, renames and unlinks in one directory, with power
 * cuts in between, checked against a small reference model of POSIX fsync semantics written
 * independently of {@link DurableImage}: names point at file ids, ids own their bytes.
 */
class PowerCutModelTest {
    private static final List<String> NAMES = List.of("a", "b", "c");

    /** The reference: what each name holds now and durably, by file identity. */
    private static final class Model {
        int nextId;
        Map<String, Integer> names = new TreeMap<>();
        Map<String, Integer> durableNames = new TreeMap<>();
        Map<Integer, byte[]> content = new HashMap<>();
        Map<Integer, byte[]> durableContent = new HashMap<>();

        int idOf(String name) {
            return names.computeIfAbsent(name, n -> {
                int id = nextId++;
                content.put(id, new byte[0]);
                durableContent.put(id, new byte[0]);
                return id;
            });
        }

        Map<String, String> afterCut() {
            Map<String, String> expected = new TreeMap<>();
            durableNames.forEach((name, id) -> expected.put(name, Arrays.toString(durableContent.get(id))));
            return expected;
        }

        void reboot() {
            Map<String, Integer> survivors = new TreeMap<>();
            Map<Integer, byte[]> bytes = new HashMap<>();
            durableNames.forEach((name, id) -> {
                int fresh = nextId++;
                survivors.put(name, fresh);
                bytes.put(fresh, durableContent.get(id));
            });
            names = new TreeMap<>(survivors);
            durableNames = new TreeMap<>(survivors);
            content = new HashMap<>(bytes);
            durableContent = new HashMap<>(bytes);
        }
    }

    @Property(tries = 200)
    void powerCutLeavesExactlyTheFsyncedState(@ForAll long seed) throws IOException {
        Random random = new Random(seed);
        Model model = new Model();
        FaultyFileSystem fs = FaultyFileSystem.wrap(Jimfs.newFileSystem(Configuration.unix()));
        Path dir = Files.createDirectories(fs.root().resolve("data"));
        AtomicFile.fsyncDirectory(fs.root());
        try {
            for (int step = 0; step < 40; step++) {
                String name = NAMES.get(random.nextInt(NAMES.size()));
                Path file = dir.resolve(name);
                switch (random.nextInt(8)) {
                    case 0, 1 -> { // append, sometimes fsynced
                        byte[] bytes = new byte[1 + random.nextInt(20)];
                        random.nextBytes(bytes);
                        boolean sync = random.nextBoolean();
                        int id = model.idOf(name);
                        try (FileChannel ch =
                                FileChannel.open(file, CREATE, WRITE, java.nio.file.StandardOpenOption.APPEND)) {
                            ch.write(ByteBuffer.wrap(bytes));
                            if (sync) {
                                ch.force(false);
                            }
                        }
                        model.content.put(id, concat(model.content.get(id), bytes));
                        if (sync) {
                            model.durableContent.put(id, model.content.get(id));
                        }
                    }
                    case 2 -> { // overwrite in place or truncate
                        if (model.names.containsKey(name)) {
                            int id = model.names.get(name);
                            byte[] now = model.content.get(id);
                            try (FileChannel ch = FileChannel.open(file, WRITE)) {
                                if (now.length > 0 && random.nextBoolean()) {
                                    int at = random.nextInt(now.length);
                                    ch.write(ByteBuffer.wrap(new byte[] {(byte) 0x7f}), at);
                                    now = now.clone();
                                    now[at] = 0x7f;
                                } else {
                                    int size = now.length == 0 ? 0 : random.nextInt(now.length);
                                    ch.truncate(size);
                                    now = Arrays.copyOf(now, size);
                                }
                            }
                            model.content.put(id, now);
                        }
                    }
                    case 3 -> { // fsync a file through a read-only channel
                        if (model.names.containsKey(name)) {
                            try (FileChannel ch = FileChannel.open(file, READ)) {
                                ch.force(true);
                            }
                            int id = model.names.get(name);
                            model.durableContent.put(id, model.content.get(id));
                        }
                    }
                    case 4 -> { // directory fsync
                        AtomicFile.fsyncDirectory(dir);
                        model.durableNames = new TreeMap<>(model.names);
                    }
                    case 5 -> { // rename over
                        String to = NAMES.get(random.nextInt(NAMES.size()));
                        if (model.names.containsKey(name) && !to.equals(name)) {
                            Files.move(
                                    file,
                                    dir.resolve(to),
                                    StandardCopyOption.REPLACE_EXISTING,
                                    StandardCopyOption.ATOMIC_MOVE);
                            model.names.put(to, model.names.remove(name));
                        }
                    }
                    case 6 -> { // unlink
                        if (model.names.containsKey(name)) {
                            Files.delete(file);
                            model.names.remove(name);
                        }
                    }
                    case 7 -> { // power cut and reboot, then carry on
                        fs = fs.powerCut();
                        dir = fs.pathOf(dir);
                        assertThat(contents(dir))
                                .as("seed %d step %d", seed, step)
                                .isEqualTo(model.afterCut());
                        model.reboot();
                    }
                    default -> throw new AssertionError();
                }
                assertThat(contents(dir).keySet())
                        .as("live names, seed %d step %d", seed, step)
                        .isEqualTo(model.names.keySet());
            }
            fs = fs.powerCut();
            assertThat(contents(fs.pathOf(dir))).as("seed %d final cut", seed).isEqualTo(model.afterCut());
        } finally {
            fs.close();
        }
    }

    private static Map<String, String> contents(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            Map<String, String> result = new TreeMap<>();
            for (Path p : files.collect(Collectors.toList())) {
                result.put(p.getFileName().toString(), Arrays.toString(Files.readAllBytes(p)));
            }
            return result;
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }
}
