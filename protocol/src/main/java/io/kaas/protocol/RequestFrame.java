package io.kaas.protocol;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * A request as a client puts it on the wire: a 4-byte size, the request header at the version the API
 * key and request version call for (flexible headers from KIP-482 on), then the body, encoded by
 * kafka-clients' own {@link RequestUtils#serialize}. What {@link FrameDecoder} and {@link RequestDecoder}
 * read; kaas sends it when one broker asks another (the inter-broker client), and tests send it raw.
 */
public final class RequestFrame {
    private RequestFrame() {}

    /** The framed request, positioned at 0 and ready to write. */
    public static ByteBuffer encode(ApiKeys api, short version, int correlationId, String clientId, ApiMessage body) {
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(api.id)
                .setRequestApiVersion(version)
                .setCorrelationId(correlationId)
                .setClientId(clientId);
        ByteBuffer payload = RequestUtils.serialize(header, api.requestHeaderVersion(version), body, version);
        ByteBuffer framed = ByteBuffer.allocate(4 + payload.remaining());
        framed.putInt(payload.remaining()).put(payload).flip();
        return framed;
    }
}
