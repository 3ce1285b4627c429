package io.kaas.broker.net;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One request off the wire: header, api, version and body as kafka-clients' generated message. The
 * {@code frame} is kept because some failure paths re-parse the body to build a typed error response.
 * {@code unsupported} marks a request whose api or version we do not serve: it is answered with
 * UNSUPPORTED_VERSION and never reaches a handler.
 */
public record DecodedRequest(ApiKeys api, short version, RequestHeaderData header, ApiMessage body,
                             ByteBuffer frame, int bodyOffset, boolean unsupported) {
    public int correlationId() {
        return header.correlationId();
    }
}
