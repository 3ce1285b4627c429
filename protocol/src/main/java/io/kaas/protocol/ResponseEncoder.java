package io.kaas.protocol;

import io.kaas.storage.segment.FileSlice;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultFileRegion;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.BaseRecords;

/**
 * Encodes a response frame: size, response header (at the version {@link ApiKeys} prescribes for the
 * request version: flexible APIs carry tagged fields, ApiVersions never does), body. Sized first with
 * {@link MessageSizeAccumulator}, written once into an exactly-sized buffer, and checked to be full.
 *
 * <p>Fetch records held as bytes are copied verbatim; records held as a {@link FileSliceRecords} are
 * not copied at all: the buffer gets a gap-free cut where they belong and the frame becomes
 * {@code bytes, file region, bytes, ...}, which Netty writes in order (sendfile for the regions).
 * Either way records are never decoded, and the bytes on the wire are the same.
 */
public final class ResponseEncoder {
    private ResponseEncoder() {}

    /** The frame as the messages to write, in order: {@code ByteBuf}s and {@code FileRegion}s. */
    public static List<Object> encode(ApiKeys api, short version, int correlationId, ApiMessage body) {
        short headerVersion = api.messageType.responseHeaderVersion(version);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, headerVersion);
        body.addSize(size, cache, version);
        int total = size.totalSize();
        // File slices are left out of the buffer; records held as bytes are copied into it.
        long slices = fileSliceBytes(body);
        SliceCollectingWriter writer = new SliceCollectingWriter(
                ByteBuffer.allocate(Math.toIntExact(FrameDecoder.SIZE_FIELD_BYTES + total - slices)));
        writer.buffer().putInt(total);
        header.write(writer, cache, headerVersion);
        body.write(writer, cache, version);
        ByteBuffer out = writer.buffer();
        long sliced = writer.slicedBytes();
        if (out.hasRemaining() || sliced != slices) {
            throw new IllegalStateException(api + " v" + version + " response: sized " + total + " bytes but wrote "
                    + (out.position() + sliced - FrameDecoder.SIZE_FIELD_BYTES));
        }
        return writer.parts();
    }

    /** Only Fetch responses carry file slices. */
    private static long fileSliceBytes(ApiMessage body) {
        if (!(body instanceof FetchResponseData fetch)) {
            return 0;
        }
        long n = 0;
        for (FetchResponseData.FetchableTopicResponse t : fetch.responses()) {
            for (FetchResponseData.PartitionData p : t.partitions()) {
                if (p.records() instanceof FileSliceRecords r) {
                    n += r.sizeInBytes();
                }
            }
        }
        return n;
    }

    /**
     * Writes like {@link ByteBufferAccessor}, except that a {@link FileSliceRecords} ends the current
     * byte part and becomes a file region part of its own.
     */
    private static final class SliceCollectingWriter extends ByteBufferAccessor {
        private final ByteBuffer buf;
        private final List<Object> parts = new ArrayList<>(1);
        private int partStart;
        private long slicedBytes;

        SliceCollectingWriter(ByteBuffer buf) {
            super(buf);
            this.buf = buf;
        }

        @Override
        public void writeRecords(BaseRecords records) {
            if (records instanceof FileSliceRecords fsr) {
                cutBytes();
                FileSlice s = fsr.slice();
                if (s.length() > 0) {
                    parts.add(new SegmentFileRegion(s));
                } else {
                    s.release();
                }
                slicedBytes += s.length();
            } else {
                super.writeRecords(records);
            }
        }

        private void cutBytes() {
            if (buf.position() > partStart) {
                parts.add(Unpooled.wrappedBuffer(buf.slice(partStart, buf.position() - partStart)));
                partStart = buf.position();
            }
        }

        long slicedBytes() {
            return slicedBytes;
        }

        List<Object> parts() {
            cutBytes();
            return parts;
        }
    }

    /**
     * A region of a segment file the engine owns. The region takes the slice over: releasing the region
     * (Netty does once it is written, or failed) releases the slice, which lets the engine's file-handle
     * cache close the channel again; Netty must not close the channel itself (DefaultFileRegion would),
     * other responses are sending from it too. Epoll's sendfile needs a DefaultFileRegion, hence the subclass.
     */
    static final class SegmentFileRegion extends DefaultFileRegion {
        private final FileSlice slice;

        SegmentFileRegion(FileSlice slice) {
            super(slice.channel(), slice.position(), slice.length());
            this.slice = slice;
        }

        @Override
        protected void deallocate() {
            slice.release();
        }
    }
}
