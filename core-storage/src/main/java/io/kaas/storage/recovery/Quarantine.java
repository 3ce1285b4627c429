package io.kaas.storage.recovery;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * Where every byte a forced recovery removes from the log goes first, so that the operator can undo
 * it by hand: {@code <partition>/.quarantine/<UTC time>/}, one file per removed byte range named
 * {@code <original file name>.<start>-<endExclusive>}, and {@code note.json} listing them with why.
 * {@link #write} makes all of it durable (files, note, directories) before it returns; only then may
 * the caller remove anything. {@code .quarantine} is not a segment: no tool reads it as one.
 */
public final class Quarantine {
    public static final String DIR_NAME = ".quarantine";
    public static final String NOTE = "note.json";
    /** Built when a quarantine is made, not when {@link #salvagedGap} is asked (each verify asks; java.time's set-up costs). */
    private static final class Stamp {
        static final DateTimeFormatter FORMAT =
                DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);
    }

    /**
     * One removed byte range: {@code file} is the original file's name, {@code saved} the copy's. A salvage
     * also records the offsets it left unused, {@code [gapFrom, gapTo)} (null otherwise): the one record that
     * an offset gap in a topic that is not compacted was made on purpose ({@link #salvagedGap}).
     */
    public record Entry(String file, long start, long end, String saved, String why, Long gapFrom, Long gapTo) {
        public Entry(String file, long start, long end, String saved, String why) {
            this(file, start, end, saved, why, null, null);
        }
    }

    /** The note's shape. */
    public record Note(List<Entry> entries) {
        public Note {
            entries = List.copyOf(entries);
        }
    }

    private final Path dir;
    private final List<Path> sources = new ArrayList<>();
    private final List<Entry> entries = new ArrayList<>();

    /** A quarantine (not yet written) under {@code partitionDir}, stamped with {@code at}. */
    public Quarantine(Path partitionDir, Instant at) {
        this.dir = partitionDir.resolve(DIR_NAME).resolve(Stamp.FORMAT.format(at));
    }

    public Path dir() {
        return dir;
    }

    /** Plans saving {@code [start, end)} of {@code file}; returns where the copy will be. */
    public Path add(Path file, long start, long end, String why) {
        return add(file, start, end, why, null, null);
    }

    /** {@link #add} for a salvaged range, which leaves offsets {@code [gapFrom, gapTo)} unused. */
    public Path add(Path file, long start, long end, String why, Long gapFrom, Long gapTo) {
        String name = file.getFileName() + "." + start + "-" + end;
        sources.add(file);
        entries.add(new Entry(file.getFileName().toString(), start, end, name, why, gapFrom, gapTo));
        return dir.resolve(name);
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The files {@link #write} creates, note included (what a dry run lists). */
    public List<Path> files() {
        List<Path> files = new ArrayList<>();
        entries.forEach(e -> files.add(dir.resolve(e.saved())));
        files.add(dir.resolve(NOTE));
        return files;
    }

    /** Copies every planned range and writes the note, all fsynced, directories included. */
    public void write() throws IOException {
        if (entries.isEmpty()) {
            return;
        }
        AtomicFile.createDirectories(dir);
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            copy(sources.get(i), e.start(), e.end(), dir.resolve(e.saved()));
        }
        AtomicFile.write(
                dir.resolve(NOTE),
                StateJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(new Note(entries)));
        AtomicFile.fsyncDirectory(dir);
    }

    private static void copy(Path source, long start, long end, Path target) throws IOException {
        try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ);
                FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(1 << 20, Math.max(1, end - start)));
            long at = start;
            while (at < end) {
                buf.clear();
                buf.limit((int) Math.min(buf.capacity(), end - at));
                int r = in.read(buf, at);
                if (r < 0) {
                    throw new IOException(
                            source + ":" + at + ": file ended before byte " + end + " while quarantining it");
                }
                buf.flip();
                while (buf.hasRemaining()) {
                    out.write(buf);
                }
                at += r;
            }
            out.force(true);
        }
    }

    /**
     * True when a salvage under {@code partitionDir} recorded that it left offsets {@code [from, to)}
     * unused: such a gap in a topic that is not compacted is a repair, not damage. An unreadable note
     * records nothing.
     */
    public static boolean salvagedGap(Path partitionDir, long from, long to) {
        Path root = partitionDir.resolve(DIR_NAME);
        if (!Files.isDirectory(root)) {
            return false;
        }
        try (java.util.stream.Stream<Path> runs = Files.list(root)) {
            for (Path run : runs.toList()) {
                for (Entry e : readNote(run).entries()) {
                    if (e.gapFrom() != null && e.gapTo() != null && e.gapFrom() <= from && to <= e.gapTo()) {
                        return true;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    /** Reads a quarantine's note (tests and operators' tools). */
    public static Note readNote(Path quarantineDir) throws IOException {
        return StateJson.mapper().readValue(Files.readAllBytes(quarantineDir.resolve(NOTE)), Note.class);
    }
}
