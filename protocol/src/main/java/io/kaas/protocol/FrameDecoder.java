package io.kaas.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into Kafka request frames: a big-endian int32 size, then that many bytes.
 * Waits for the whole frame before emitting it, so nothing downstream can read past its end. A size
 * above {@code socket.request.max.bytes} (or negative, e.g. a frame claiming 2 GiB) closes the
 * connection with one log line: Apache does the same, and nothing else is safe once framing is lost.
 *
 * <p>Each frame is copied once into its own buffer from Netty's pooled direct allocator: no garbage per
 * request, and Produce records go from it straight to the segment file (a heap buffer would be copied
 * again into the JDK's temporary direct buffer). It is not a slice of the read buffer on purpose: a
 * request that waits for its fsync would pin that buffer, and every following read would then copy
 * the cumulation (measured: produce throughput fell by more than half). Whoever ends up holding the
 * frame releases it: {@link RequestDecoder} when it does not decode, otherwise
 * {@link RequestDispatcher} once the request's response is encoded (see {@link DecodedRequest}).
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    public static final int SIZE_FIELD_BYTES = 4;

    private final IntSupplier maxFrameBytes;

    public FrameDecoder(int maxFrameBytes) {
        this(() -> maxFrameBytes);
    }

    /**
     * A limit that may change over the connection's life: a SASL listener allows only
     * {@code sasl.server.max.receive.size} until the client has authenticated, as Apache does, so an
     * unauthenticated client cannot make the broker buffer a 100 MiB frame.
     */
    public FrameDecoder(IntSupplier maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < SIZE_FIELD_BYTES) {
            return;
        }
        int size = in.getInt(in.readerIndex());
        int limit = maxFrameBytes.getAsInt();
        if (size < 0 || size > limit) {
            LOG.warn(
                    "closing connection from {}: request frame of {} bytes exceeds the limit {} "
                            + "(socket.request.max.bytes; sasl.server.max.receive.size before SASL authentication)",
                    ctx.channel().remoteAddress(),
                    Integer.toUnsignedLong(size),
                    limit);
            in.skipBytes(in.readableBytes());
            ctx.close();
            return;
        }
        if (in.readableBytes() < SIZE_FIELD_BYTES + size) {
            return;
        }
        in.skipBytes(SIZE_FIELD_BYTES);
        ByteBuf frame = ctx.alloc().directBuffer(size, size);
        in.readBytes(frame, size);
        out.add(frame);
    }
}
