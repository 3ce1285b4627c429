package io.kaas.storage.durability;

import io.kaas.storage.DiskStorageEngine;
import io.kaas.storage.EngineConfig;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.testfs.FaultyFileSystem;
import io.kaas.storage.testfs.TornTail;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * The durability tests' one fixture: a {@link FaultyFileSystem} on Jimfs, a data directory that exists
 * durably before any engine starts (as an operator's would), the {@link DiskStorageEngine} on it opened
 * with one config, and power cuts that reboot the world. {@link #close()} closes the engine and the
 * file system. Tests reach the parts through {@link #fs()} and {@link #engine()}; both change at a
 * power cut, so a test keeps no copy of either across one. A test whose engine something else owns
 * (a broker closes its engine at stop) builds it from {@link #config()} and never calls {@link #open()}.
 */
public final class FaultyDisk implements AutoCloseable {
    private final UnaryOperator<EngineConfig> tune;
    /** The data directory in the first world; {@link FaultyFileSystem#pathOf} maps it into the current one. */
    private final Path data;

    private FaultyFileSystem fs;
    private DiskStorageEngine engine;

    private FaultyDisk(FaultyFileSystem fs, Path data, UnaryOperator<EngineConfig> tune) {
        this.fs = fs;
        this.data = data;
        this.tune = tune;
    }

    /**
     * A fresh disk with an empty, durable data directory and no engine yet ({@link #open()} starts one).
     * {@code tune} turns {@code EngineConfig.defaults(dataDir)} into the test's config.
     */
    public static FaultyDisk create(UnaryOperator<EngineConfig> tune) throws IOException {
        FaultyFileSystem fs = FaultyFileSystem.onJimfs();
        try {
            Path data = Files.createDirectory(fs.root().resolve("data"));
            AtomicFile.fsyncDirectory(fs.root());
            return new FaultyDisk(fs, data, tune);
        } catch (IOException | RuntimeException e) {
            fs.close();
            throw e;
        }
    }

    /** {@link #create} with the engine's defaults. */
    public static FaultyDisk create() throws IOException {
        return create(UnaryOperator.identity());
    }

    /** The file system of the current world (a power cut replaces it). */
    public FaultyFileSystem fs() {
        return fs;
    }

    /** The data directory in the current world. */
    public Path dataDir() {
        return fs.pathOf(data);
    }

    /** A partition's directory in the current world. */
    public Path partitionDir(TopicPartition tp) {
        return dataDir().resolve(tp.topic()).resolve(Integer.toString(tp.partition()));
    }

    /** The engine's config for the current world. */
    public EngineConfig config() {
        return tune.apply(EngineConfig.defaults(dataDir()));
    }

    /** The engine last opened, or null once closed. */
    public DiskStorageEngine engine() {
        return engine;
    }

    /** Opens an engine on the current world; the one before it, if any, must be closed already. */
    public DiskStorageEngine open() {
        if (engine != null) {
            throw new IllegalStateException("the previous engine is still open");
        }
        engine = new DiskStorageEngine(config());
        return engine;
    }

    /** Closes the engine (a failure fails the caller); {@link #open()} starts the next one. */
    public void closeEngine() {
        DiskStorageEngine e = engine;
        engine = null;
        if (e != null) {
            e.close();
        }
    }

    /**
     * Closes an engine that is expected to fail closing: after a power cut it lives in the dead world,
     * and closing writes a manifest and checkpoints, which fail there.
     */
    public void closeEngineQuietly() {
        try {
            closeEngine();
        } catch (RuntimeException expected) {
            // the old engine lives in the dead world
        }
    }

    /** A clean close and a reopen on the same world. */
    public DiskStorageEngine reopen() {
        closeEngine();
        return open();
    }

    /**
     * Cuts the power and nothing else: the world reboots with what was durable, the engine (if any)
     * still runs in the dead one until the test closes it ({@link #closeEngineQuietly()}).
     */
    public FaultyFileSystem cutPower(TornTail tail, long seed) throws IOException {
        fs = fs.powerCut(tail, seed);
        return fs;
    }

    /** {@link #cutPower(TornTail, long)} with the file system's default tail. */
    public FaultyFileSystem cutPower() throws IOException {
        fs = fs.powerCut();
        return fs;
    }

    /** Cuts the power with the file system's default tail, closes the dead engine and opens a new one. */
    public DiskStorageEngine powerCutAndReopen() throws IOException {
        cutPower();
        closeEngineQuietly();
        return open();
    }

    /** Cuts the power ({@code tail}, {@code seed}), closes the dead engine and opens a new one. */
    public DiskStorageEngine powerCutAndReopen(TornTail tail, long seed) throws IOException {
        cutPower(tail, seed);
        closeEngineQuietly();
        return open();
    }

    /** Closes the engine (a failure fails the test) and then, always, the file system. */
    @Override
    public void close() throws IOException {
        try {
            closeEngine();
        } finally {
            fs.close();
        }
    }
}
