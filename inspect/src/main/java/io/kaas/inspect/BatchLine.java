package io.kaas.inspect;

import io.kaas.storage.format.RecordBatchHeader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One batch as Apache's {@code kafka-dump-log} prints it, same field names in the same order, read
 * from the 61-byte header alone:
 * {@code baseOffset lastOffset count baseSequence lastSequence producerId producerEpoch
 * partitionLeaderEpoch isTransactional isControl deleteHorizonMs position CreateTime|LogAppendTime
 * size magic compresscodec crc isvalid}.
 */
public record BatchLine(Path file, long position, RecordBatchHeader header, boolean valid) implements DumpEvent {
    /** Attribute bit 6: the batch's base timestamp is the delete horizon (set by the log cleaner). */
    private static final int DELETE_HORIZON_FLAG = 0x40;

    private static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};

    public static String codecName(int codec) {
        return codec >= 0 && codec < CODECS.length ? CODECS[codec] : "unknown(" + codec + ")";
    }

    public String timestampType() {
        return header.isLogAppendTime() ? "LogAppendTime" : "CreateTime";
    }

    /** Apache prints {@code OptionalLong.empty} or {@code OptionalLong[ms]}. */
    public String deleteHorizon() {
        return (header.attributes() & DELETE_HORIZON_FLAG) != 0
                ? "OptionalLong[" + header.baseTimestamp() + "]"
                : "OptionalLong.empty";
    }

    public long crcUnsigned() {
        return Integer.toUnsignedLong(header.crc());
    }

    @Override
    public String text() {
        RecordBatchHeader h = header;
        return "baseOffset: " + h.baseOffset()
                + " lastOffset: " + h.lastOffset()
                + " count: " + h.recordCount()
                + " baseSequence: " + h.baseSequence()
                + " lastSequence: " + h.lastSequence()
                + " producerId: " + h.producerId()
                + " producerEpoch: " + h.producerEpoch()
                + " partitionLeaderEpoch: " + h.partitionLeaderEpoch()
                + " isTransactional: " + h.isTransactional()
                + " isControl: " + h.isControl()
                + " deleteHorizonMs: " + deleteHorizon()
                + " position: " + position
                + " " + timestampType() + ": " + h.maxTimestamp()
                + " size: " + h.sizeInBytes()
                + " magic: " + h.magic()
                + " compresscodec: " + codecName(h.compressionCodec())
                + " crc: " + crcUnsigned()
                + " isvalid: " + valid;
    }

    @Override
    public Map<String, Object> json() {
        RecordBatchHeader h = header;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "batch");
        m.put("file", file.toString());
        m.put("baseOffset", h.baseOffset());
        m.put("lastOffset", h.lastOffset());
        m.put("count", h.recordCount());
        m.put("baseSequence", h.baseSequence());
        m.put("lastSequence", h.lastSequence());
        m.put("producerId", h.producerId());
        m.put("producerEpoch", h.producerEpoch());
        m.put("partitionLeaderEpoch", h.partitionLeaderEpoch());
        m.put("isTransactional", h.isTransactional());
        m.put("isControl", h.isControl());
        m.put("deleteHorizonMs", (h.attributes() & DELETE_HORIZON_FLAG) != 0 ? h.baseTimestamp() : null);
        m.put("position", position);
        m.put("timestampType", timestampType());
        m.put("maxTimestamp", h.maxTimestamp());
        m.put("size", h.sizeInBytes());
        m.put("magic", h.magic());
        m.put("compresscodec", codecName(h.compressionCodec()));
        m.put("crc", crcUnsigned());
        m.put("isvalid", valid);
        return m;
    }
}
