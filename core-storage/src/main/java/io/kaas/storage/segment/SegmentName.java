package io.kaas.storage.segment;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A segment's identity as its file names carry it: {@code {epoch:08x}-{base_offset:020d}.log} and
 * {@code .index}. The epoch prefix means a stale ex-leader's files can never collide with a new
 * leader's. Apache Kafka's unprefixed names ({@code 00000000000000000000.log}) are read too, with
 * epoch -1 ({@link #apacheStyle()}), so the offline tools work on Apache log dirs.
 */
public record SegmentName(int epoch, long baseOffset, boolean apacheStyle) implements Comparable<SegmentName> {
    public static final String LOG_SUFFIX = ".log";
    public static final String INDEX_SUFFIX = ".index";
    private static final Pattern KAAS = Pattern.compile("([0-9a-f]{8})-([0-9]{20})\\.(log|index)");
    private static final Pattern APACHE = Pattern.compile("([0-9]{20})\\.(log|index)");

    public static SegmentName of(int epoch, long baseOffset) {
        return new SegmentName(epoch, baseOffset, false);
    }

    /** Parses a {@code .log} or {@code .index} file name; empty for anything else. */
    public static Optional<SegmentName> parse(String fileName) {
        Matcher m = KAAS.matcher(fileName);
        if (m.matches()) {
            return Optional.of(
                    new SegmentName(Integer.parseUnsignedInt(m.group(1), 16), Long.parseLong(m.group(2)), false));
        }
        m = APACHE.matcher(fileName);
        if (m.matches()) {
            return Optional.of(new SegmentName(-1, Long.parseLong(m.group(1)), true));
        }
        return Optional.empty();
    }

    public static boolean isLogFile(String fileName) {
        return fileName.endsWith(LOG_SUFFIX) && parse(fileName).isPresent();
    }

    public static boolean isIndexFile(String fileName) {
        return fileName.endsWith(INDEX_SUFFIX) && parse(fileName).isPresent();
    }

    /**
     * {@code %020d} and {@code %08x-%020d}, padded by hand: a segment name is the first String.format a
     * short {@code kaas verify} would make, and java.util.Formatter's set-up, interpreted, costs more than the
     * whole name (SegmentNameTest checks both agree).
     */
    private String stem() {
        if (baseOffset < 0) {
            return apacheStyle ? String.format("%020d", baseOffset) : String.format("%08x-%020d", epoch, baseOffset);
        }
        String offset = zeroPadded(Long.toString(baseOffset), 20);
        return apacheStyle ? offset : zeroPadded(Integer.toHexString(epoch), 8) + "-" + offset;
    }

    private static String zeroPadded(String digits, int width) {
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }

    public String logFileName() {
        return stem() + LOG_SUFFIX;
    }

    public String indexFileName() {
        return stem() + INDEX_SUFFIX;
    }

    /** By base offset, then epoch (so of two files with one base offset the higher epoch sorts last). */
    @Override
    public int compareTo(SegmentName o) {
        int c = Long.compare(baseOffset, o.baseOffset);
        return c != 0 ? c : Integer.compare(epoch, o.epoch);
    }

    @Override
    public String toString() {
        return stem();
    }
}
