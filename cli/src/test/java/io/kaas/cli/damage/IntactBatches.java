package io.kaas.cli.damage;

import io.kaas.storage.format.RecordBatchHeader;
import io.kaas.storage.segment.SegmentName;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every CRC-valid v2 batch in a partition's logs, found by a resynchronising walk: at every byte position,
 * not by following lengths (a damaged length would hide every batch after it). A batch is its exact bytes;
 * a tool keeps it when the same bytes still frame a CRC-valid batch somewhere in the logs afterwards.
 */
final class IntactBatches {
    /**
     * One CRC-valid batch. {@code mayBeCut}: it lies in the active segment after the bytes that stop a walk
     * by lengths and does not continue the log (its base offset is not past the offsets before those bytes),
     * so it is part of a torn tail that recovery may cut without asking.
     */
    record Batch(String file, int position, ByteBuffer bytes, long baseOffset, long lastOffset, boolean mayBeCut) {
        @Override
        public String toString() {
            return file + ":" + position + " (offsets " + baseOffset + ".." + lastOffset + ", " + bytes.remaining()
                    + " bytes)";
        }
    }

    private IntactBatches() {}

    /** The CRC-valid batches of every {@code .log} in {@code files} (partition-relative name -> content). */
    static List<Batch> of(Map<String, byte[]> files) {
        List<String> logs = files.keySet().stream()
                .filter(IntactBatches::isPartitionLog)
                .sorted(IntactBatches::bySegment)
                .toList();
        List<Batch> out = new ArrayList<>();
        for (int i = 0; i < logs.size(); i++) {
            out.addAll(walk(logs.get(i), files.get(logs.get(i)), i == logs.size() - 1));
        }
        return out;
    }

    /** The bytes of each CRC-valid batch of the logs in {@code files}, to look batches up by content. */
    static Set<ByteBuffer> contents(Map<String, byte[]> files) {
        Set<ByteBuffer> out = new HashSet<>();
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
            if (isPartitionLog(e.getKey())) {
                walk(e.getKey(), e.getValue(), false).forEach(b -> out.add(b.bytes()));
            }
        }
        return out;
    }

    /** A segment log directly in the partition dir ({@code .quarantine} and temporary files are not the log). */
    static boolean isPartitionLog(String relative) {
        return !relative.contains("/") && SegmentName.isLogFile(relative);
    }

    private static int bySegment(String a, String b) {
        int byName = SegmentName.parse(a)
                .orElseThrow()
                .compareTo(SegmentName.parse(b).orElseThrow());
        return byName != 0 ? byName : a.compareTo(b);
    }

    static List<Batch> walk(String file, byte[] bytes, boolean active) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        // where a walk by lengths stops, and the last offset it reached
        long framedEnd = 0;
        long lastFramed = -1;
        List<Batch> out = new ArrayList<>();
        for (int pos = 0; pos + RecordBatchHeader.HEADER_SIZE <= bytes.length; pos++) {
            int size = validSizeAt(buf, pos);
            if (size < 0) {
                continue;
            }
            RecordBatchHeader h = RecordBatchHeader.peek(buf, pos);
            if (pos == framedEnd) {
                framedEnd = pos + size;
                lastFramed = Math.max(lastFramed, h.lastOffset());
            }
            boolean mayBeCut = active && pos >= framedEnd && h.baseOffset() <= lastFramed;
            out.add(new Batch(
                    file,
                    pos,
                    ByteBuffer.wrap(bytes, pos, size).slice().asReadOnlyBuffer(),
                    h.baseOffset(),
                    h.lastOffset(),
                    mayBeCut));
        }
        return out;
    }

    /** The size of the CRC-valid v2 batch whose header starts at {@code pos}, or -1. */
    private static int validSizeAt(ByteBuffer buf, int pos) {
        if (buf.get(pos + RecordBatchHeader.MAGIC_OFFSET) != RecordBatchHeader.MAGIC_V2) {
            return -1;
        }
        long size = RecordBatchHeader.LOG_OVERHEAD + (long) buf.getInt(pos + RecordBatchHeader.LENGTH_OFFSET);
        if (size < RecordBatchHeader.HEADER_SIZE || pos + size > buf.limit()) {
            return -1;
        }
        int stored = buf.getInt(pos + RecordBatchHeader.CRC_OFFSET);
        return RecordBatchHeader.computeCrc(buf, pos, (int) size) == stored ? (int) size : -1;
    }
}
