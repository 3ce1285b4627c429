package io.kaas.cli.damage;

import io.kaas.cli.damage.DamageCase.Field;
import io.kaas.cli.damage.DamageCase.Kind;
import io.kaas.cli.damage.DamageCase.Target;
import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.segment.SegmentName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

/** Applies one {@link DamageCase} to a partition dir, at a place drawn from the case's seed. */
final class Damager {
    /** What was done: the file (relative to the partition dir), the byte it starts at, in words. */
    record Applied(String file, long at, String what) {
        @Override
        public String toString() {
            return file + ":" + at + ": " + what;
        }
    }

    private Damager() {}

    /** Damages {@code partition}; empty when the scenario has no such file (nothing done). */
    static Optional<Applied> apply(Path partition, DamageCase c) throws IOException {
        Random r = c.placement();
        if (c.kind() == Kind.NONE) {
            return Optional.of(new Applied("-", 0, "no damage (control)"));
        }
        List<Path> segments = segmentLogs(partition);
        Path file;
        if (c.target() == Target.LOG || c.target() == Target.INDEX) {
            Path log = segments.get(r.nextInt(segments.size()));
            file = c.target() == Target.LOG
                    ? log
                    : log.resolveSibling(SegmentName.parse(log.getFileName().toString())
                            .orElseThrow()
                            .indexFileName());
        } else {
            file = partition.resolve(c.target().fileName).normalize();
        }
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        String name = partition.relativize(file).toString();
        byte[] bytes = Files.readAllBytes(file);
        if (c.kind() == Kind.DELETE) {
            Files.delete(file);
            return Optional.of(new Applied(name, 0, "deleted (" + bytes.length + " bytes)"));
        }
        if (c.kind() == Kind.OVERLAP_COPY) {
            return Optional.of(overlap(partition, segments, file, r));
        }
        // the damaged range [from, to) within the file
        int from;
        int to;
        if (c.field() == Field.WHOLE_FILE || bytes.length == 0) {
            from = bytes.length == 0 ? 0 : r.nextInt(bytes.length);
            to = Math.min(bytes.length, from + 1 + r.nextInt(16));
        } else if (c.field() == Field.INDEX_ENTRY) {
            int entries = bytes.length / 8;
            if (entries == 0) {
                return Optional.empty();
            }
            from = 8 * r.nextInt(entries);
            to = from + 8;
        } else {
            List<int[]> batches = framed(bytes);
            if (batches.isEmpty()) {
                return Optional.empty();
            }
            int[] b = batches.get(r.nextInt(batches.size()));
            if (c.field() == Field.CRC_COVERED) {
                // the CRC itself one time in eight, else the bytes it covers past the attributes
                from = r.nextInt(8) == 0 ? b[0] + 17 + r.nextInt(4) : b[0] + 23 + r.nextInt(b[1] - 23);
                to = Math.min(b[0] + b[1], from + 1 + (c.kind() == Kind.ZERO ? r.nextInt(16) : 0));
            } else {
                from = b[0] + c.field().from;
                to = b[0] + c.field().to;
            }
        }
        String what;
        switch (c.kind()) {
            case FLIP -> {
                int at = from + r.nextInt(Math.max(1, to - from));
                if (at >= bytes.length) {
                    return Optional.empty();
                }
                int bit = r.nextInt(8);
                bytes[at] ^= (byte) (1 << bit);
                from = at;
                what = "flipped bit " + bit;
            }
            case ZERO -> {
                Arrays.fill(bytes, from, to, (byte) 0);
                what = "zeroed " + (to - from) + " bytes";
            }
            case TRUNCATE -> {
                from = from + r.nextInt(Math.max(1, to - from));
                what = "truncated from " + bytes.length + " bytes";
                bytes = Arrays.copyOf(bytes, Math.min(from, bytes.length));
            }
            case DUPLICATE -> {
                // a copy of [from, end) put back at from: up to a whole batch or entry written twice
                int end = Math.min(bytes.length, from + 1 + r.nextInt(Math.max(1, Math.min(200, bytes.length - from))));
                byte[] copy = Arrays.copyOfRange(bytes, from, end);
                byte[] out = new byte[bytes.length + copy.length];
                System.arraycopy(bytes, 0, out, 0, from);
                System.arraycopy(copy, 0, out, from, copy.length);
                System.arraycopy(bytes, from, out, from + copy.length, bytes.length - from);
                bytes = out;
                what = "duplicated " + copy.length + " bytes";
            }
            default -> throw new IllegalStateException(c.kind().toString());
        }
        Files.write(file, bytes);
        return Optional.of(new Applied(name, from, what));
    }

    /** Copies a segment (log and index) under a base offset inside the segment before it (or inside itself). */
    private static Applied overlap(Path partition, List<Path> segments, Path log, Random r) throws IOException {
        int i = segments.indexOf(log);
        SegmentName own = SegmentName.parse(log.getFileName().toString()).orElseThrow();
        SegmentName below = i > 0
                ? SegmentName.parse(segments.get(i - 1).getFileName().toString())
                        .orElseThrow()
                : own;
        long span = Math.max(1, own.baseOffset() - below.baseOffset());
        long base = below.baseOffset() + 1 + r.nextLong(span);
        SegmentName copy = SegmentName.of(own.epoch(), base == own.baseOffset() ? base + 1 : base);
        Files.copy(log, partition.resolve(copy.logFileName()));
        Path index = partition.resolve(own.indexFileName());
        if (Files.exists(index)) {
            Files.copy(index, partition.resolve(copy.indexFileName()));
        }
        return new Applied(copy.logFileName(), 0, "copy of " + log.getFileName() + " under an overlapping name");
    }

    /** (position, size) of each batch a walk by lengths frames. */
    static List<int[]> framed(byte[] bytes) {
        List<int[]> out = new ArrayList<>();
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        int pos = 0;
        while (pos + RecordBatchHeader.HEADER_SIZE <= bytes.length) {
            int size = RecordBatchHeader.LOG_OVERHEAD + buf.getInt(pos + RecordBatchHeader.LENGTH_OFFSET);
            if (size < RecordBatchHeader.HEADER_SIZE || pos + size > bytes.length) {
                break;
            }
            out.add(new int[] {pos, size});
            pos += size;
        }
        return out;
    }

    static List<Path> segmentLogs(Path partition) throws IOException {
        try (Stream<Path> s = Files.list(partition)) {
            return s.filter(p -> SegmentName.isLogFile(p.getFileName().toString()))
                    .sorted(Comparator.comparing(
                            p -> SegmentName.parse(p.getFileName().toString()).orElseThrow()))
                    .toList();
        }
    }
}
