package io.kaas.storage.layout;

import java.nio.charset.StandardCharsets;

/**
 * The file of one consumer group's committed offsets, {@code <data>/__cluster/__consumer_offsets/<name>.json}: the
 * group id with every byte outside {@code [A-Za-z0-9._-]} (and a leading '.') percent-encoded, so any group id maps
 * to one safe name and back. The broker's offset store and {@code kaas import} both name files by this rule.
 */
public final class GroupOffsetFileName {
    public static final String SUFFIX = ".json";

    private GroupOffsetFileName() {}

    public static String of(String group) {
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
     * The group {@code fileName} is the file of: {@link #of}'s inverse; empty for a name it never produces (not
     * ours, or renamed by hand), whose file is then read to learn its group.
     */
    public static java.util.Optional<String> groupOf(String fileName) {
        if (!fileName.endsWith(SUFFIX)) {
            return java.util.Optional.empty();
        }
        String encoded = fileName.substring(0, fileName.length() - SUFFIX.length());
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%' && i + 2 < encoded.length()) {
                int hi = Character.digit(encoded.charAt(i + 1), 16);
                int lo = Character.digit(encoded.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return java.util.Optional.empty();
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x80 && c != '%') {
                bytes.write(c);
            } else {
                return java.util.Optional.empty();
            }
        }
        try {
            String group = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
            return of(group).equals(fileName) ? java.util.Optional.of(group) : java.util.Optional.empty();
        } catch (java.nio.charset.CharacterCodingException e) {
            return java.util.Optional.empty();
        }
    }
}
