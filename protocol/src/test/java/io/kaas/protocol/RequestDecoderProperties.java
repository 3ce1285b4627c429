package io.kaas.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.ShortRange;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.common.protocol.ApiKeys;

/** Decoder fuzzing: any complete frame either decodes to a request or closes the connection; nothing throws. */
class RequestDecoderProperties {
    private static ServedApis everything() {
        ServedApis served = new ServedApis();
        for (ApiKeys api : ApiKeys.values()) {
            if (api.hasValidVersion()) {
                served.serveAll(api);
            }
        }
        return served;
    }

    @Property(tries = 2000)
    void anyFrameDecodesOrCloses(
            @ForAll @ShortRange(min = -2, max = 100) short key,
            @ForAll @ShortRange(min = -1, max = 20) short version,
            @ForAll @Size(max = 300) byte[] rest) {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20), new RequestDecoder(everything()));
        ByteBuf frame = Unpooled.buffer();
        frame.writeInt(4 + rest.length).writeShort(key).writeShort(version).writeBytes(rest);
        ch.writeInbound(frame);
        Object out = ch.readInbound();
        if (out == null) {
            assertThat(ch.isOpen()).as("no request and still open").isFalse();
        } else {
            assertThat(out).isInstanceOf(DecodedRequest.class);
            assertThat(((DecodedRequest) out).api().id).isEqualTo(key);
            ((DecodedRequest) out).release();
        }
        ch.finishAndReleaseAll();
    }

    @Property(tries = 200)
    void framesAreOnlyEmittedWhenComplete(@ForAll @IntRange(min = 1, max = 63) int split) {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20));
        ByteBuf whole = Unpooled.buffer().writeInt(60).writeBytes(new byte[60]);
        ch.writeInbound(whole.readRetainedSlice(split));
        assertThat((Object) ch.readInbound()).isNull();
        ch.writeInbound(whole.readRetainedSlice(whole.readableBytes()));
        ByteBuf frame = ch.readInbound();
        assertThat(frame.readableBytes()).isEqualTo(60);
        frame.release();
        whole.release();
        ch.finishAndReleaseAll();
    }

    @Property(tries = 50)
    void oversizedFramesCloseBeforeTheBodyArrives(@ForAll @IntRange(min = 1025, max = Integer.MAX_VALUE) int claimed) {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1024));
        ch.writeInbound(Unpooled.buffer().writeInt(claimed));
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }
}
