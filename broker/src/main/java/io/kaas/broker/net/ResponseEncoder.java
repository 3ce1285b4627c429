package io.kaas.broker.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Encodes a response frame: size, response header (at the version {@link ApiKeys} prescribes for the
 * request version: flexible APIs carry tagged fields, ApiVersions never does), body. Sized first with
 * {@link MessageSizeAccumulator}, written once into an exactly-sized buffer, and checked to be full.
 * Fetch record bytes are copied verbatim from the engine's buffer; they are never decoded.
 */
public final class ResponseEncoder {
    private ResponseEncoder() {}

    public static ByteBuf encode(ApiKeys api, short version, int correlationId, ApiMessage body) {
        short headerVersion = api.messageType.responseHeaderVersion(version);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, headerVersion);
        body.addSize(size, cache, version);
        int total = size.totalSize();
        ByteBuffer out = ByteBuffer.allocate(FrameDecoder.SIZE_FIELD_BYTES + total);
        out.putInt(total);
        ByteBufferAccessor writer = new ByteBufferAccessor(out);
        header.write(writer, cache, headerVersion);
        body.write(writer, cache, version);
        if (out.hasRemaining()) {
            throw new IllegalStateException(api + " v" + version + " response: sized " + total + " bytes but wrote "
                    + (out.position() - FrameDecoder.SIZE_FIELD_BYTES));
        }
        out.flip();
        return Unpooled.wrappedBuffer(out);
    }
}
