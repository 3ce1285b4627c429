package io.kaas.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one frame into a {@link DecodedRequest} with kafka-clients' generated classes.
 *
 * <ul>
 *   <li>api key unknown to kafka-clients, or a version it cannot decode: nothing can be answered in a
 *       format the client expects, so the connection is closed with a log line (as Apache does);
 *   <li>ApiVersions at a version we do not know: passed on as unsupported; the dispatcher answers v0
 *       UNSUPPORTED_VERSION with our list, which is how clients learn what to downgrade to;
 *   <li>a decodable api or version that we do not serve: passed on as unsupported, answered with that
 *       API's UNSUPPORTED_VERSION error response;
 *   <li>a body that does not parse (truncated, bad lengths): the connection is closed with a log line.
 * </ul>
 * Records inside a Produce request are not parsed: kafka-clients hands them over as a
 * {@code MemoryRecords} slice of the frame.
 */
public final class RequestDecoder extends MessageToMessageDecoder<ByteBuf> {
    private static final Logger LOG = LoggerFactory.getLogger(RequestDecoder.class);
    /** api key, api version, correlation id. */
    private static final int MIN_HEADER_BYTES = 8;

    private final ServedApis served;

    public RequestDecoder(ServedApis served) {
        super(ByteBuf.class);
        this.served = served;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf owner, List<Object> out) {
        // A view of the frame's memory; the DecodedRequest retains the owner, or it is released after this call.
        ByteBuffer frame = owner.nioBuffer();
        if (frame.remaining() < MIN_HEADER_BYTES) {
            close(ctx, "request of " + frame.remaining() + " bytes is shorter than a request header");
            return;
        }
        short key = frame.getShort(0);
        short version = frame.getShort(2);
        if (!ApiKeys.hasId(key)) {
            close(ctx, "unknown api key " + key + " (version " + version + ", correlation id " + frame.getInt(4) + ")");
            return;
        }
        ApiKeys api = ApiKeys.forId(key);
        boolean decodable = version >= api.oldestVersion() && version <= api.latestVersion(true);
        if (!decodable && api != ApiKeys.API_VERSIONS) {
            close(
                    ctx,
                    api + " version " + version + " is not a version any Kafka release defines (" + api.oldestVersion()
                            + ".." + api.latestVersion(true) + "); correlation id " + frame.getInt(4));
            return;
        }
        ByteBufferAccessor reader = new ByteBufferAccessor(frame);
        RequestHeaderData header;
        ApiMessage body;
        int bodyOffset;
        try {
            header = new RequestHeaderData(reader, api.messageType.requestHeaderVersion(version));
            bodyOffset = frame.position();
            if (!decodable) {
                // Newer ApiVersions than we know: its body may not parse; Kafka answers v0 regardless.
                out.add(new DecodedRequest(
                        api, version, header, new ApiVersionsRequestData(), frame, bodyOffset, true, owner.retain()));
                return;
            }
            body = api.messageType.newRequest();
            body.read(reader, version);
        } catch (RuntimeException e) {
            close(ctx, api + " v" + version + " request does not parse (" + e + "); correlation id " + frame.getInt(4));
            return;
        }
        out.add(new DecodedRequest(
                api, version, header, body, frame, bodyOffset, !served.serves(api, version), owner.retain()));
    }

    private static void close(ChannelHandlerContext ctx, String reason) {
        LOG.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), reason);
        ctx.close();
    }
}
