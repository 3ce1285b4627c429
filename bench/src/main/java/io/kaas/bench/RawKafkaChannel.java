package io.kaas.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * One Kafka connection of {@link ConnectionLoad} on a Netty event loop: requests framed with kafka-clients'
 * generated message classes, responses matched to them in order (a Kafka broker answers one connection's
 * requests in the order they came). Everything runs on the channel's event loop, so no locks: {@link #send}
 * must be called there (or via {@link #sendFromAnyThread}).
 */
final class RawKafkaChannel extends SimpleChannelInboundHandler<ByteBuf> {
    static final String CLIENT_ID = "connection-load";

    /** A request sent and not yet answered: its correlation id, for the check, and who waits for the body. */
    private record Pending(int correlationId, ApiKeys api, short version, CompletableFuture<ByteBuffer> answer) {}

    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private Channel channel;
    private int nextCorrelationId;

    /** The whole frame (size, header, body) of {@code body} at {@code version} with correlation id 0. */
    static ByteBuf frame(ApiKeys api, short version, ApiMessage body) {
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(api.id)
                .setRequestApiVersion(version)
                .setClientId(CLIENT_ID)
                .setCorrelationId(0);
        short headerVersion = api.requestHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        ByteBuffer out = ByteBuffer.allocate(4 + size);
        out.putInt(size);
        ByteBufferAccessor writer = new ByteBufferAccessor(out);
        header.write(writer, cache, headerVersion);
        body.write(writer, cache, version);
        out.flip();
        return Unpooled.wrappedBuffer(out);
    }

    /** The correlation id's place in a frame: after size (4), api key (2) and api version (2). */
    private static final int CORRELATION_ID_OFFSET = 8;

    CompletableFuture<Void> closed() {
        return closed;
    }

    Channel channel() {
        return channel;
    }

    boolean open() {
        return channel != null && channel.isActive();
    }

    /** Sends {@code body}; the answer is the response body after its header. On the event loop only. */
    CompletableFuture<ByteBuffer> send(ApiKeys api, short version, ApiMessage body) {
        return sendFrame(api, version, frame(api, version, body));
    }

    /**
     * Sends a prebuilt {@link #frame} (not consumed: a copy goes out with this connection's correlation id), so a
     * producer encodes its Produce request once. On the event loop only.
     */
    CompletableFuture<ByteBuffer> sendFrame(ApiKeys api, short version, ByteBuf template) {
        CompletableFuture<ByteBuffer> answer = new CompletableFuture<>();
        if (channel == null || !channel.isActive()) {
            answer.completeExceptionally(new IOException("connection closed"));
            return answer;
        }
        int id = ++nextCorrelationId;
        ByteBuf out = channel.alloc().buffer(template.readableBytes());
        out.writeBytes(template, template.readerIndex(), template.readableBytes());
        out.setInt(CORRELATION_ID_OFFSET, id);
        pending.add(new Pending(id, api, version, answer));
        channel.writeAndFlush(out, channel.voidPromise());
        return answer;
    }

    CompletableFuture<ByteBuffer> sendFromAnyThread(ApiKeys api, short version, ApiMessage body) {
        CompletableFuture<ByteBuffer> answer = new CompletableFuture<>();
        channel.eventLoop()
                .execute(() -> send(api, version, body).whenComplete((b, e) -> {
                    if (e != null) {
                        answer.completeExceptionally(e);
                    } else {
                        answer.complete(b);
                    }
                }));
        return answer;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        channel = ctx.channel();
        super.channelActive(ctx);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        Pending p = pending.poll();
        if (p == null) {
            ctx.close();
            return;
        }
        ByteBuffer body = ByteBuffer.allocate(frame.readableBytes());
        frame.readBytes(body);
        body.flip();
        ResponseHeaderData header =
                new ResponseHeaderData(new ByteBufferAccessor(body), p.api.responseHeaderVersion(p.version));
        if (header.correlationId() != p.correlationId) {
            p.answer.completeExceptionally(
                    new IOException("correlation id " + header.correlationId() + ", expected " + p.correlationId));
            ctx.close();
            return;
        }
        p.answer.complete(body.slice());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        IOException gone = new IOException("connection closed by the broker");
        Pending p;
        while ((p = pending.poll()) != null) {
            p.answer.completeExceptionally(gone);
        }
        closed.complete(null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
