package io.kaas.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One request off the wire: header, api, version and body as kafka-clients' generated message. The
 * {@code frame} is kept because some failure paths re-parse the body to build a typed error response.
 * {@code unsupported} marks a request whose api or version we do not serve: it is answered with
 * UNSUPPORTED_VERSION and never reaches a handler.
 *
 * <p>{@code frame} is a view of {@code owner}, a pooled Netty buffer, and so are Produce's records in
 * {@code body}. The dispatcher calls {@link #release()} exactly once, after the response is encoded
 * (or the connection is gone); handlers therefore complete their future only when nothing they
 * started still reads the request's bytes (Produce waits for every append, even with acks=0).
 */
public record DecodedRequest(
        ApiKeys api,
        short version,
        RequestHeaderData header,
        ApiMessage body,
        ByteBuffer frame,
        int bodyOffset,
        boolean unsupported,
        ByteBuf owner) {
    public int correlationId() {
        return header.correlationId();
    }

    public void release() {
        owner.release();
    }
}
