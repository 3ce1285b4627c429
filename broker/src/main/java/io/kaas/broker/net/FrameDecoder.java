package io.kaas.broker.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.ByteBuffer;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into Kafka request frames: a big-endian int32 size, then that many bytes.
 * Waits for the whole frame before emitting it, so nothing downstream can read past its end. A size
 * above {@code socket.request.max.bytes} (or negative, e.g. a frame claiming 2 GiB) closes the
 * connection with one log line: Apache does the same, and nothing else is safe once framing is lost.
 *
 * <p>Each frame is copied once into its own heap buffer. That copy is what the handlers (and the
 * storage engine, for Produce) own: it outlives the Netty buffer, which is released right away.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
    public static final int SIZE_FIELD_BYTES = 4;

    private final int maxFrameBytes;

    public FrameDecoder(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < SIZE_FIELD_BYTES) {
            return;
        }
        int size = in.getInt(in.readerIndex());
        if (size < 0 || size > maxFrameBytes) {
            LOG.warn("closing connection from {}: request frame of {} bytes exceeds socket.request.max.bytes {}",
                    ctx.channel().remoteAddress(), Integer.toUnsignedLong(size), maxFrameBytes);
            in.skipBytes(in.readableBytes());
            ctx.close();
            return;
        }
        if (in.readableBytes() < SIZE_FIELD_BYTES + size) {
            return;
        }
        in.skipBytes(SIZE_FIELD_BYTES);
        byte[] frame = new byte[size];
        in.readBytes(frame);
        out.add(ByteBuffer.wrap(frame));
    }
}
