package io.kaas.storage.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kaas.storage.format.StateJson;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StateFileLock}: read-modify-writes of one state file by several writers, in one process and in two. */
class StateFileLockTest {
    record Counter(int n) {}

    @TempDir
    Path dir;

    private static void increment(Path file) {
        try (StateFileLock lock = StateFileLock.exclusive(file)) {
            int n = StateJson.read(file, Counter.class).map(Counter::n).orElse(0);
            Thread.yield(); // widen the window a lost update needs
            StateJson.write(file, new Counter(n + 1));
        }
    }

    @Test
    void twoWritersOfOneProcessLoseNoChange() throws Exception {
        Path file = dir.resolve("__cluster/counter.json"); // the directory is created by the lock, durably
        ExecutorService writers = Executors.newFixedThreadPool(2, r -> new Thread(r, "state-writer"));
        try {
            List<Future<?>> done = List.of(
                    writers.submit(() -> {
                        for (int i = 0; i < 150; i++) increment(file);
                    }),
                    writers.submit(() -> {
                        for (int i = 0; i < 150; i++) increment(file);
                    }));
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            writers.shutdownNow();
        }
        assertThat(StateJson.read(file, Counter.class)).contains(new Counter(300));
        assertThat(StateFileLock.lockFileOf(file))
                .hasFileName("counter.json.lock")
                .exists();
    }

    @Test
    void aWriterThatWaitsTooLongGetsAnErrorNamingTheLockFile() {
        Path file = dir.resolve("acls.json");
        try (StateFileLock held = StateFileLock.exclusive(file)) {
            assertThatThrownBy(() -> StateFileLock.exclusive(file, Duration.ofMillis(50)))
                    .isInstanceOf(StorageException.class)
                    .satisfies(e -> assertThat(((StorageException) e).kind()).isEqualTo(StorageException.Kind.LOCKED))
                    .hasMessageContaining(dir.resolve("acls.json.lock").toString())
                    .hasMessageContaining("acls.json was not changed");
        }
        StateFileLock.exclusive(file, Duration.ofMillis(50)).close(); // released with the first
    }

    /** Run in a second JVM: takes the lock of args[0], says so, and holds it until its stdin closes. */
    public static void main(String[] args) throws Exception {
        try (StateFileLock lock = StateFileLock.exclusive(Path.of(args[0]))) {
            System.out.println("held");
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the parent to close our stdin
            }
        }
    }

    @Test
    void anotherProcessHoldingTheLockMakesTheWriterWaitUntilItLetsGo() throws Exception {
        Path file = dir.resolve("credentials.json");
        Files.writeString(file, "{}");
        Process other = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        StateFileLockTest.class.getName(),
                        file.toString())
                .redirectErrorStream(true)
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("held");
            assertThatThrownBy(() -> StateFileLock.exclusive(file, Duration.ofMillis(200)))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("another writer held it");
            other.getOutputStream().close();
            try (StateFileLock mine = StateFileLock.exclusive(file, Duration.ofSeconds(30))) {
                assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
