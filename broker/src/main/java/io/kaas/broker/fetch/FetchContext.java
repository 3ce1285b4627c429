package io.kaas.broker.fetch;

import java.util.List;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * How one Fetch request is served (Apache's {@code FetchContext} kinds): which partitions to read, and what
 * to do with the full response before it is sent — nothing (sessionless), create a session (full),
 * keep only what changed (incremental), or answer a session error with no partitions.
 */
public final class FetchContext {
    private enum Kind {
        SESSIONLESS,
        FULL,
        INCREMENTAL,
        ERROR
    }

    private final Kind kind;
    private final List<FetchRequestData.FetchTopic> topics;
    private final FetchSessionCache cache;
    private final FetchSession session;
    private final Errors error;
    private final boolean usesTopicIds;

    private FetchContext(
            Kind kind,
            List<FetchRequestData.FetchTopic> topics,
            FetchSessionCache cache,
            FetchSession session,
            Errors error,
            boolean usesTopicIds) {
        this.kind = kind;
        this.topics = topics;
        this.cache = cache;
        this.session = session;
        this.error = error;
        this.usesTopicIds = usesTopicIds;
    }

    static FetchContext sessionless(List<FetchRequestData.FetchTopic> topics) {
        return new FetchContext(Kind.SESSIONLESS, topics, null, null, Errors.NONE, false);
    }

    static FetchContext full(FetchSessionCache cache, List<FetchRequestData.FetchTopic> topics, boolean usesTopicIds) {
        return new FetchContext(Kind.FULL, topics, cache, null, Errors.NONE, usesTopicIds);
    }

    static FetchContext incremental(FetchSession session) {
        return new FetchContext(
                Kind.INCREMENTAL, session.asRequest(), null, session, Errors.NONE, session.usesTopicIds);
    }

    static FetchContext error(Errors error) {
        return new FetchContext(Kind.ERROR, List.of(), null, null, error, false);
    }

    /** A session error (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH, ...), answered at once; NONE otherwise. */
    public Errors error() {
        return error;
    }

    /** The partitions to read: the request's, or for an incremental fetch every partition of the session. */
    public List<FetchRequestData.FetchTopic> topics() {
        return topics;
    }

    /**
     * The size of what {@link #finish} would send for {@code response} (Apache's {@code getResponseSize},
     * which is what a consumer_byte_rate quota counts): an incremental fetch counts only the partitions it
     * would carry. Changes nothing.
     */
    public int responseSize(FetchResponseData response, short version) {
        FetchResponseData sent = response;
        if (kind == Kind.INCREMENTAL) {
            synchronized (session) {
                sent = session.changedView(response);
            }
        }
        return sent.size(new ObjectSerializationCache(), version);
    }

    /**
     * The answer to a client over its quota (Apache's {@code getThrottledResponse}, KIP-219): no partitions
     * and {@code throttle_time_ms}; a full fetch creates no session, an incremental one keeps its id and
     * remembers nothing, so what was not sent is sent on a later fetch.
     */
    public FetchResponseData throttled(int throttleMs) {
        FetchResponseData out =
                new FetchResponseData().setThrottleTimeMs(throttleMs).setErrorCode(Errors.NONE.code());
        return out.setSessionId(kind == Kind.INCREMENTAL ? session.id : FetchSessionCache.INVALID_SESSION_ID);
    }

    /** Turns the response over {@link #topics()} into the one to send, with its session id. */
    public FetchResponseData finish(FetchResponseData response) {
        switch (kind) {
            case ERROR -> {
                return new FetchResponseData()
                        .setErrorCode(error.code())
                        .setSessionId(FetchSessionCache.INVALID_SESSION_ID);
            }
            case FULL -> {
                FetchSession created = cache.maybeCreate(topics, usesTopicIds);
                if (created == null) {
                    return response.setSessionId(FetchSessionCache.INVALID_SESSION_ID);
                }
                synchronized (created) {
                    created.rememberSent(response);
                }
                return response.setSessionId(created.id);
            }
            case INCREMENTAL -> {
                synchronized (session) {
                    session.keepChanged(response);
                }
                return response.setSessionId(session.id);
            }
            default -> {
                return response.setSessionId(FetchSessionCache.INVALID_SESSION_ID);
            }
        }
    }
}
