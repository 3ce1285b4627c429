package io.kaas.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per connection; runs only on the connection's event loop (so its fields need no locks).
 *
 * <p>Requests are handled in arrival order and answered in arrival order. Like Apache, a request
 * waits until the one before it is answered — with one exception: a Produce behind Produce requests
 * (up to {@link #MAX_PIPELINED_PRODUCE}, the producer's own max.in.flight default) starts as soon as the
 * previous one's handler has returned, i.e. its appends are written and only its fsync is pending.
 * That lets one producer's in-flight requests share a group-commit fsync instead of paying one fsync
 * each, without reordering anything: appends still happen in request order (idempotence sequences
 * stay in order) and responses are still written in request order. Reads are muted (autoRead off)
 * whenever the next request could not start at once.
 */
public final class RequestDispatcher extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(RequestDispatcher.class);
    static final int MAX_PIPELINED_PRODUCE = 5;

    /** A request whose handler was called; answered in order once its response is ready. */
    private static final class Call {
        final DecodedRequest request;
        boolean ready;
        ApiMessage body;
        Throwable error;

        Call(DecodedRequest request) {
            this.request = request;
        }

        boolean isProduce() {
            return request.api() == ApiKeys.PRODUCE;
        }
    }

    private final RequestInvoker invoker;
    private final InFlightRequests inFlight;
    private final Deque<DecodedRequest> waiting = new ArrayDeque<>();
    private final Deque<Call> calls = new ArrayDeque<>();
    /** How many of {@link #calls} are not Produce: a Produce may pipeline only behind Produce requests. */
    private int nonProduceCalls;
    /** A handler is running its synchronous part; the next request may not start before it returns. */
    private boolean handling;

    private boolean closed;
    private boolean unmuteScheduled;

    public RequestDispatcher(RequestInvoker invoker, InFlightRequests inFlight) {
        this.invoker = invoker;
        this.inFlight = inFlight;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        waiting.add((DecodedRequest) msg);
        startNext(ctx);
    }

    private boolean mayStart(ChannelHandlerContext ctx, DecodedRequest next) {
        if (handling || closed) {
            return false;
        }
        if (muted(ctx)) {
            return false;
        }
        if (calls.isEmpty()) {
            return true;
        }
        return next.api() == ApiKeys.PRODUCE && onlyProduceBelowLimit();
    }

    private void startNext(ChannelHandlerContext ctx) {
        DecodedRequest next = waiting.peek();
        if (next != null && mayStart(ctx, next)) {
            waiting.poll();
            Call call = new Call(next);
            calls.add(call);
            if (!call.isProduce()) {
                nonProduceCalls++;
            }
            handling = true;
            inFlight.started();
            RequestInvoker.Invocation invocation;
            try {
                ClientSession session = ctx.channel().attr(ClientSession.KEY).get();
                invocation = session == null
                        ? invoker.invoke(next, ctx.channel().remoteAddress())
                        : invoker.invoke(next, ctx.channel().remoteAddress(), session);
            } catch (RuntimeException e) {
                invocation = new RequestInvoker.Invocation(
                        java.util.concurrent.CompletableFuture.completedFuture(null),
                        java.util.concurrent.CompletableFuture.failedFuture(e));
            }
            invocation
                    .handled()
                    .whenComplete((v, t) -> ctx.executor().execute(() -> {
                        handling = false;
                        startNext(ctx);
                    }));
            invocation
                    .response()
                    .whenComplete((body, error) -> ctx.executor().execute(() -> {
                        call.ready = true;
                        call.body = body;
                        call.error = error;
                        writeReady(ctx);
                    }));
        }
        updateReads(ctx);
    }

    /**
     * KIP-219: a client over its quota is read no more until its throttle time is over (its response
     * went out at once). Checked again when the mute ends.
     */
    private boolean muted(ChannelHandlerContext ctx) {
        ClientSession session = ctx.channel().attr(ClientSession.KEY).get();
        long nanos = session == null ? 0 : session.mutedForNanos();
        if (nanos == 0) {
            return false;
        }
        if (!unmuteScheduled) {
            unmuteScheduled = true;
            ctx.executor()
                    .schedule(
                            () -> {
                                unmuteScheduled = false;
                                startNext(ctx);
                            },
                            nanos,
                            java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        return true;
    }

    private boolean onlyProduceBelowLimit() {
        return calls.size() < MAX_PIPELINED_PRODUCE && nonProduceCalls == 0;
    }

    /** Reads stay on only while another request could start at once. */
    private void updateReads(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            return;
        }
        boolean open = waiting.isEmpty() && (calls.isEmpty() || onlyProduceBelowLimit()) && !muted(ctx);
        ctx.channel().config().setAutoRead(open);
    }

    /** Writes every answer at the head of the queue that is ready, in request order. */
    private void writeReady(ChannelHandlerContext ctx) {
        while (!calls.isEmpty() && calls.peek().ready) {
            Call call = calls.poll();
            if (!call.isProduce()) {
                nonProduceCalls--;
            }
            if (closed || !ctx.channel().isActive()) {
                call.request.release();
                FileSliceRecords.releaseAll(call.body);
                inFlight.finished();
                continue;
            }
            write(ctx, call);
        }
        startNext(ctx);
    }

    private void write(ChannelHandlerContext ctx, Call call) {
        DecodedRequest request = call.request;
        List<Object> frame;
        try {
            ApiMessage out = call.error == null ? call.body : invoker.errorResponse(request, call.error);
            if (out == null) {
                request.release();
                inFlight.finished();
                return;
            }
            frame = ResponseEncoder.encode(request.api(), responseVersion(request), request.correlationId(), out);
            // The response holds no view of the request frame: encoding copied what it needed.
            request.release();
        } catch (RuntimeException e) {
            request.release();
            FileSliceRecords.releaseAll(call.body);
            inFlight.finished();
            LOG.error(
                    "closing connection from {}: cannot encode the {} v{} response",
                    ctx.channel().remoteAddress(),
                    request.api(),
                    request.version(),
                    e);
            close(ctx);
            return;
        }
        // Every part but the last is only queued; the last one's listener sees the whole frame's outcome.
        for (int i = 0; i < frame.size() - 1; i++) {
            ctx.write(frame.get(i), ctx.voidPromise());
        }
        ctx.writeAndFlush(frame.get(frame.size() - 1)).addListener(f -> {
            inFlight.finished();
            ClientSession session = ctx.channel().attr(ClientSession.KEY).get();
            if (session != null && session.closeAfterResponse()) {
                // A failed SASL exchange: the client reads why, then the connection is gone (as Apache).
                close(ctx);
            } else if (!f.isSuccess()) {
                LOG.debug(
                        "write to {} failed: {}",
                        ctx.channel().remoteAddress(),
                        f.cause().toString());
                close(ctx);
            }
        });
    }

    private void close(ChannelHandlerContext ctx) {
        closed = true;
        releaseWaiting();
        ctx.close();
    }

    /** Requests never started hold their frames; calls already started release theirs in writeReady. */
    private void releaseWaiting() {
        for (DecodedRequest r; (r = waiting.poll()) != null; ) {
            r.release();
        }
    }

    /** An unsupported ApiVersions request is answered at v0, the one version every client can read. */
    private static short responseVersion(DecodedRequest request) {
        return request.unsupported() && request.api() == ApiKeys.API_VERSIONS ? 0 : request.version();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closed = true;
        releaseWaiting();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
        close(ctx);
    }
}
