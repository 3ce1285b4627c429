package io.kaas.storage.format;

import io.kaas.storage.io.StorageException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * {@code <data>/__cluster/__consumer_offsets/<group>.json}: one consumer group's committed offsets and the
 * offsets open transactions staged for it (TxnOffsetCommit). The broker's offset store writes these files;
 * the offline tools ({@code kaas ls}) read them with the same records. Group ids become file names by
 * percent-encoding every byte outside {@code [A-Za-z0-9._-]} (and a leading '.'), so any group id maps to one
 * safe name and back.
 */
public final class GroupOffsetsFile {
    public static final String SUFFIX = ".json";

    private GroupOffsetsFile() {}

    /** One committed offset, as stored. */
    public record Committed(
            String topic, int partition, long offset, int leaderEpoch, String metadata, long commitTimestamp) {}

    /**
     * One producer's offsets staged by TxnOffsetCommit in its open transaction, not visible to OffsetFetch until
     * the transaction's COMMIT marker reaches this group.
     */
    public record PendingOffsets(long producerId, short producerEpoch, List<Committed> offsets) {
        public PendingOffsets {
            offsets = offsets == null ? List.of() : List.copyOf(offsets);
        }
    }

    /** The file's content ({@code pending} absent in files written before it existed: none). */
    public record GroupOffsets(String groupId, List<Committed> offsets, List<PendingOffsets> pending) {
        public GroupOffsets {
            offsets = offsets == null ? List.of() : offsets;
            pending = pending == null ? List.of() : pending;
        }
    }

    /**
     * The files of the groups {@code which} selects, in directory order; none when the directory does not exist.
     * A file is parsed only when its name ({@link #groupOf}) says it may be one of them.
     *
     * @throws StorageException IO naming the directory or the file that cannot be listed or parsed
     */
    public static List<GroupOffsets> readAll(Path dir, Predicate<String> which) {
        List<GroupOffsets> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                Optional<String> named = groupOf(f.getFileName().toString());
                if (named.isPresent() && !which.test(named.get())) {
                    continue;
                }
                StateJson.read(f, GroupOffsets.class)
                        .filter(g -> which.test(g.groupId()))
                        .ifPresent(out::add);
            }
        } catch (NoSuchFileException e) {
            return out;
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, dir + ": cannot load committed offsets: " + e.getMessage(), e);
        }
        return out;
    }

    /** The file name of {@code group}'s file. */
    public static String fileName(String group) {
        StringBuilder sb = new StringBuilder();
        byte[] bytes = group.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            int b = bytes[i] & 0xff;
            boolean safe = (b >= 'a' && b <= 'z')
                    || (b >= 'A' && b <= 'Z')
                    || (b >= '0' && b <= '9')
                    || b == '_'
                    || b == '-'
                    || (b == '.' && i > 0);
            if (safe) {
                sb.append((char) b);
            } else {
                sb.append('%').append(String.format("%02X", b));
            }
        }
        return sb + SUFFIX;
    }

    /**
     * The group {@code fileName} is the file of: {@link #fileName}'s inverse; empty for a name it never produces (not
     * ours, or renamed by hand), whose file is then read to learn its group.
     */
    public static Optional<String> groupOf(String fileName) {
        if (!fileName.endsWith(SUFFIX)) {
            return Optional.empty();
        }
        String encoded = fileName.substring(0, fileName.length() - SUFFIX.length());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%' && i + 2 < encoded.length()) {
                int hi = Character.digit(encoded.charAt(i + 1), 16);
                int lo = Character.digit(encoded.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return Optional.empty();
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x80 && c != '%') {
                bytes.write(c);
            } else {
                return Optional.empty();
            }
        }
        try {
            String group = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
            return fileName(group).equals(fileName) ? Optional.of(group) : Optional.empty();
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}
