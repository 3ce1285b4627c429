package io.kaas.inspect.data;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * {@code kaas cat --json}: one object per record, on one line: {@code {"type":"record","topic","partition","offset",
 * "timestamp","timestampType","key","value","headers":[{"key","value"}]}}. Keys and values (and header values) are
 * strings when they are UTF-8, null when null; bytes that are not UTF-8 go in {@code keyBase64} /
 * {@code valueBase64} (header: {@code valueBase64}) instead, with {@code key} / {@code value} null.
 */
public final class RecordJson {
    private static final JsonFactory FACTORY = new JsonFactory();

    private final OutputStream out;

    public RecordJson(OutputStream out) {
        this.out = out;
    }

    public void write(PartitionDir p, RecordBatch batch, Record r) throws IOException {
        try (JsonGenerator g =
                FACTORY.createGenerator(out, JsonEncoding.UTF8).disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)) {
            g.writeStartObject();
            g.writeStringField("type", "record");
            g.writeStringField("topic", p.topic());
            g.writeNumberField("partition", p.partition());
            g.writeNumberField("offset", r.offset());
            g.writeNumberField("timestamp", r.timestamp());
            g.writeStringField("timestampType", batch.timestampType().toString());
            bytes(g, "key", r.key());
            bytes(g, "value", r.value());
            g.writeArrayFieldStart("headers");
            for (Header h : r.headers()) {
                g.writeStartObject();
                g.writeStringField("key", h.key());
                bytes(g, "value", h.value() == null ? null : ByteBuffer.wrap(h.value()));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        out.write('\n');
    }

    private static void bytes(JsonGenerator g, String field, ByteBuffer b) throws IOException {
        if (b == null) {
            g.writeNullField(field);
            return;
        }
        try {
            String s = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(b.duplicate())
                    .toString();
            g.writeStringField(field, s);
        } catch (CharacterCodingException e) {
            byte[] raw = new byte[b.remaining()];
            b.duplicate().get(raw);
            g.writeNullField(field);
            g.writeStringField(field + "Base64", Base64.getEncoder().encodeToString(raw));
        }
    }
}
