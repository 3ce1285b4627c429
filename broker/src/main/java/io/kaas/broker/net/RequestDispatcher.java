package io.kaas.broker.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per connection; runs only on the connection's event loop (so its fields need no locks).
 *
 * <p>One request in flight, as Apache: reads are muted (autoRead off) as soon as a request arrives and
 * resumed only when its response has been written and no decoded request is waiting. Frames that
 * arrived in the same read are queued and served in order, so responses go out in request order.
 * The handler's future may complete on any thread; completion hops back to this event loop to write.
 */
public final class RequestDispatcher extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(RequestDispatcher.class);

    private final RequestInvoker invoker;
    private final InFlightRequests inFlight;
    private final Deque<DecodedRequest> waiting = new ArrayDeque<>();
    private boolean busy;

    public RequestDispatcher(RequestInvoker invoker, InFlightRequests inFlight) {
        this.invoker = invoker;
        this.inFlight = inFlight;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        waiting.add((DecodedRequest) msg);
        ctx.channel().config().setAutoRead(false);
        if (!busy) {
            next(ctx);
        }
    }

    private void next(ChannelHandlerContext ctx) {
        DecodedRequest request = waiting.poll();
        if (request == null) {
            busy = false;
            if (ctx.channel().isActive()) {
                ctx.channel().config().setAutoRead(true);
            }
            return;
        }
        busy = true;
        inFlight.started();
        CompletableFuture<ApiMessage> response;
        try {
            response = invoker.invoke(request, ctx.channel().remoteAddress());
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        response.whenComplete((body, error) -> ctx.executor().execute(() -> respond(ctx, request, body, error)));
    }

    private void respond(ChannelHandlerContext ctx, DecodedRequest request, ApiMessage body, Throwable error) {
        if (!ctx.channel().isActive()) {
            inFlight.finished();
            waiting.clear();
            busy = false;
            return;
        }
        ByteBuf frame;
        try {
            ApiMessage out = error == null ? body : invoker.errorResponse(request, error);
            if (out == null) {
                inFlight.finished();
                next(ctx);
                return;
            }
            frame = ResponseEncoder.encode(request.api(), responseVersion(request), request.correlationId(), out);
        } catch (RuntimeException e) {
            inFlight.finished();
            LOG.error("closing connection from {}: cannot encode the {} v{} response", ctx.channel().remoteAddress(),
                    request.api(), request.version(), e);
            ctx.close();
            return;
        }
        ctx.writeAndFlush(frame).addListener(f -> {
            inFlight.finished();
            if (!f.isSuccess()) {
                LOG.debug("write to {} failed: {}", ctx.channel().remoteAddress(), f.cause().toString());
                ctx.close();
            }
            next(ctx);
        });
    }

    /** An unsupported ApiVersions request is answered at v0, the one version every client can read. */
    private static short responseVersion(DecodedRequest request) {
        return request.unsupported() && request.api() == org.apache.kafka.common.protocol.ApiKeys.API_VERSIONS
                ? 0 : request.version();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        waiting.clear();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
