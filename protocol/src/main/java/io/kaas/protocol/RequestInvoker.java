package io.kaas.protocol;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a decoded request to its {@link ApiHandler} on the request-handler pool (or, when the handler
 * can start it without blocking, on the calling event loop: {@link ApiHandler#startOnNetworkThread}),
 * and builds the typed error response when a request is unsupported or its handler fails.
 */
public final class RequestInvoker {
    private static final Logger LOG = LoggerFactory.getLogger(RequestInvoker.class);

    private final ServedApis served;
    private final Map<ApiKeys, ApiHandler<? extends ApiMessage>> handlers = new EnumMap<>(ApiKeys.class);
    /** The APIs whose handler has its own {@link ApiHandler#startOnNetworkThread} (the others always go to the pool). */
    private final Set<ApiKeys> startOnNetworkThread = EnumSet.noneOf(ApiKeys.class);

    private final Executor handlerPool;
    private final RequestObserver observer;
    /** Set by {@link #authorizeWith} before the listeners are bound. */
    private volatile Authorization access;

    private volatile RequestThrottle throttling;

    public RequestInvoker(ServedApis served, Executor handlerPool) {
        this(served, handlerPool, RequestObserver.NONE);
    }

    public RequestInvoker(ServedApis served, Executor handlerPool, RequestObserver observer) {
        this.served = served;
        this.handlerPool = handlerPool;
        this.observer = observer;
    }

    /** Registers the handler for {@code api} and advertises versions {@code oldest..maxVersion}. */
    public <Q extends ApiMessage> void register(ApiKeys api, int maxVersion, ApiHandler<Q> handler) {
        handlers.put(api, handler);
        noteNetworkThreadStart(api, handler);
        served.serveUpTo(api, maxVersion);
    }

    /** Registers the handler for {@code api} and advertises versions {@code minVersion..maxVersion}. */
    public <Q extends ApiMessage> void register(ApiKeys api, int minVersion, int maxVersion, ApiHandler<Q> handler) {
        handlers.put(api, handler);
        noteNetworkThreadStart(api, handler);
        served.serveRange(api, minVersion, maxVersion);
    }

    private void noteNetworkThreadStart(ApiKeys api, ApiHandler<?> handler) {
        try {
            boolean own = handler.getClass()
                            .getMethod("startOnNetworkThread", RequestContext.class, ApiMessage.class, Executor.class)
                            .getDeclaringClass()
                    != ApiHandler.class;
            if (own) {
                startOnNetworkThread.add(api);
            } else {
                startOnNetworkThread.remove(api);
            }
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Authorization for every request from now on (before the listeners are bound). */
    public void authorizeWith(Authorization access) {
        this.access = access;
    }

    /** Client quotas for every request from now on (before the listeners are bound). */
    public void throttleWith(RequestThrottle t) {
        this.throttling = t;
    }

    public ServedApis served() {
        return served;
    }

    /**
     * A handler call in two stages: {@code handled} completes when the handler has returned (its
     * synchronous work, e.g. Produce's appends, is done); {@code response} when the answer is ready
     * (e.g. after the fsync). The dispatcher starts a pipelined request only after the previous one is handled.
     */
    public record Invocation(CompletableFuture<?> handled, CompletableFuture<ApiMessage> response) {}

    public Invocation invoke(DecodedRequest request, SocketAddress remote) {
        return invoke(request, remote, ClientSession.plaintext(remote));
    }

    public Invocation invoke(DecodedRequest request, SocketAddress remote, ClientSession session) {
        long received = System.nanoTime();
        if (request.unsupported()) {
            CompletableFuture<ApiMessage> done = CompletableFuture.completedFuture(unsupportedResponse(request));
            observer.answered(request.api(), Errors.UNSUPPORTED_VERSION, 0, 0, System.nanoTime() - received);
            return new Invocation(done, done);
        }
        @SuppressWarnings("unchecked")
        ApiHandler<ApiMessage> handler = (ApiHandler<ApiMessage>) handlers.get(request.api());
        Authorization a = access;
        if (a == null) {
            throw new IllegalStateException(
                    "a request arrived before authorizeWith: the listeners must be bound after it");
        }
        RequestContext ctx = new RequestContext(
                request.api(),
                request.version(),
                request.header().clientId(),
                request.correlationId(),
                remote,
                session,
                a);
        long[] started = new long[2]; // written by the handler thread before the future completes, read after
        ApiHandler.Started onNetworkThread = startOnNetworkThread.contains(request.api())
                ? startOnNetworkThread(handler, ctx, request, started)
                : null;
        CompletableFuture<?> handled;
        CompletableFuture<ApiMessage> answered;
        if (onNetworkThread != null) {
            handled = onNetworkThread.handled();
            answered = onNetworkThread.response();
        } else {
            CompletableFuture<CompletableFuture<ApiMessage>> onPool = onHandlerPool(handler, ctx, request, started);
            handled = onPool;
            answered = onPool.thenCompose(f -> f);
        }
        answered.whenComplete((r, failure) -> observer.answered(
                request.api(),
                failure == null ? Errors.NONE : ErrorMapping.toKafka(ErrorMapping.unwrap(failure)),
                started[0] == 0 ? 0 : started[0] - received,
                started[1],
                System.nanoTime() - received));
        RequestThrottle t = throttling;
        CompletableFuture<ApiMessage> response = t == null
                ? answered
                : answered.handle((body, failure) -> {
                    if (!t.active()) {
                        if (failure != null) {
                            throw failure instanceof CompletionException c ? c : new CompletionException(failure);
                        }
                        return body;
                    }
                    // Apache throttles an error response too (sendErrorResponseMaybeThrottle): a denied client is not
                    // free.
                    ApiMessage out = failure == null ? body : errorResponse(request, failure);
                    t.apply(
                            request.api(),
                            session,
                            ctx.principal().getName(),
                            ctx.clientId(),
                            request.frame().limit(),
                            started[1],
                            out);
                    return out;
                });
        return new Invocation(handled, response);
    }

    /** {@link ApiHandler#startOnNetworkThread} on the calling thread (the event loop), or null to use the pool. */
    private ApiHandler.Started startOnNetworkThread(
            ApiHandler<ApiMessage> handler, RequestContext ctx, DecodedRequest request, long[] started) {
        long t0 = System.nanoTime();
        try {
            if (RequestLevelAuthorization.check(ctx, request.api(), request.body()) != Errors.NONE) {
                return null; // the pool's path answers the denial
            }
            ApiHandler.Started s = handler.startOnNetworkThread(ctx, request.body(), handlerPool);
            if (s != null) {
                started[0] = t0;
                started[1] = System.nanoTime() - t0;
            }
            return s;
        } catch (RuntimeException e) {
            started[0] = t0;
            started[1] = System.nanoTime() - t0;
            return new ApiHandler.Started(CompletableFuture.completedFuture(null), CompletableFuture.failedFuture(e));
        }
    }

    private CompletableFuture<CompletableFuture<ApiMessage>> onHandlerPool(
            ApiHandler<ApiMessage> handler, RequestContext ctx, DecodedRequest request, long[] started) {
        return CompletableFuture.supplyAsync(
                () -> {
                    started[0] = System.nanoTime();
                    try {
                        Errors denied = RequestLevelAuthorization.check(ctx, request.api(), request.body());
                        if (denied != Errors.NONE) {
                            return CompletableFuture.<ApiMessage>failedFuture(denied.exception());
                        }
                        return handler.handle(ctx, request.body());
                    } finally {
                        started[1] = System.nanoTime() - started[0];
                    }
                },
                handlerPool);
    }

    private ApiMessage unsupportedResponse(DecodedRequest request) {
        if (request.api() == ApiKeys.API_VERSIONS) {
            return new ApiVersionsResponseData()
                    .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                    .setApiKeys(served.toApiVersions());
        }
        LOG.info(
                "answering UNSUPPORTED_VERSION to {} v{} from client {}",
                request.api(),
                request.version(),
                request.header().clientId());
        return errorResponse(
                request,
                new UnsupportedVersionException(
                        request.api() + " v" + request.version() + " is not served by this broker"));
    }

    /** The API's own error response (every partition/topic marked), or null for acks=0 Produce. */
    public ApiMessage errorResponse(DecodedRequest request, Throwable failure) {
        Throwable cause = ErrorMapping.unwrap(failure);
        Errors error = ErrorMapping.toKafka(cause);
        if (error == Errors.UNKNOWN_SERVER_ERROR) {
            LOG.error(
                    "{} v{} from client {} failed",
                    request.api(),
                    request.version(),
                    request.header().clientId(),
                    cause);
        }
        if (request.api() == ApiKeys.PRODUCE && ((ProduceRequestData) request.body()).acks() == 0) {
            return null;
        }
        ByteBuffer body = request.frame().duplicate();
        body.position(request.bodyOffset());
        AbstractRequest parsed = AbstractRequest.parseRequest(
                        request.api(), request.version(), new ByteBufferAccessor(body.slice()))
                .request;
        return parsed.getErrorResponse(error.exception(cause.getMessage())).data();
    }
}
