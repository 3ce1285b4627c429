package io.kaas.broker.fetch;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker's incremental fetch sessions (KIP-227), bounded like Apache's {@code FetchSessionCache}:
 * at most {@code max.incremental.fetch.session.cache.slots} sessions (default 1000; 0 turns sessions off,
 * every fetch is then a full one). Sessions are found by id alone, from any connection. When the cache is
 * full a new session takes a slot only by evicting: first the least recently used session if it is stale
 * (unused for {@link #EVICTION_MS}, Apache's {@code min.incremental.fetch.session.eviction.ms}), otherwise
 * the smallest session, and only if the new one has more partitions (a busy consumer of many partitions
 * is worth more than a small one). kaas has no followers, so every session is a consumer's: none is privileged.
 */
public final class FetchSessionCache {
    public static final int DEFAULT_SLOTS = 1000;
    static final long EVICTION_MS = 120_000;
    static final int INVALID_SESSION_ID = 0;
    static final int INITIAL_EPOCH = 0;
    static final int FINAL_EPOCH = -1;
    /** Sessions exist from Fetch v7 (KIP-227). */
    private static final short FIRST_SESSION_VERSION = 7;

    private static final short FIRST_TOPIC_ID_VERSION = 13;

    private record LastUsed(long ms, int id) implements Comparable<LastUsed> {
        @Override
        public int compareTo(LastUsed o) {
            return ms != o.ms ? Long.compare(ms, o.ms) : Integer.compare(id, o.id);
        }
    }

    private record Evictable(int size, int id) implements Comparable<Evictable> {
        @Override
        public int compareTo(Evictable o) {
            return size != o.size ? Integer.compare(size, o.size) : Integer.compare(id, o.id);
        }
    }

    private final int slots;
    private final LongSupplier clockMs;
    private final Map<Integer, FetchSession> sessions = new HashMap<>();
    private final Map<Integer, LastUsed> lastUsedOf = new HashMap<>();
    private final Map<Integer, Evictable> evictableOf = new HashMap<>();
    private final TreeMap<LastUsed, FetchSession> byLastUse = new TreeMap<>();
    private final TreeMap<Evictable, FetchSession> bySize = new TreeMap<>();

    public FetchSessionCache(int slots, LongSupplier clockMs) {
        if (slots < 0) {
            throw new IllegalArgumentException(
                    "max.incremental.fetch.session.cache.slots must not be negative, got " + slots);
        }
        this.slots = slots;
        this.clockMs = clockMs;
    }

    /** Apache's {@code FetchMetadata.nextEpoch}: after the last int comes 1 (0 means "new session"). */
    static int nextEpoch(int epoch) {
        if (epoch < 0) {
            return FINAL_EPOCH;
        }
        return epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
    }

    /**
     * Decides how a Fetch request is served, as Apache's {@code FetchManager.newContext}: a full request
     * (epoch 0 or -1) closes the session it names, and with epoch 0 asks for a new one; an incremental request
     * (epoch > 0) must name a live session at its expected epoch, else FETCH_SESSION_ID_NOT_FOUND or
     * INVALID_FETCH_SESSION_EPOCH.
     */
    public FetchContext newContext(FetchRequestData request, short version) {
        if (version < FIRST_SESSION_VERSION) {
            return FetchContext.sessionless(request.topics());
        }
        boolean usesTopicIds = version >= FIRST_TOPIC_ID_VERSION;
        int epoch = request.sessionEpoch();
        if (epoch == INITIAL_EPOCH || epoch == FINAL_EPOCH) {
            if (request.sessionId() != INVALID_SESSION_ID) {
                remove(request.sessionId());
            }
            return epoch == FINAL_EPOCH
                    ? FetchContext.sessionless(request.topics())
                    : FetchContext.full(this, request.topics(), usesTopicIds);
        }
        synchronized (this) {
            FetchSession session = sessions.get(request.sessionId());
            if (session == null) {
                return FetchContext.error(Errors.FETCH_SESSION_ID_NOT_FOUND);
            }
            synchronized (session) {
                if (session.epoch != epoch) {
                    return FetchContext.error(Errors.INVALID_FETCH_SESSION_EPOCH);
                }
                if (session.usesTopicIds != usesTopicIds) {
                    return FetchContext.error(Errors.FETCH_SESSION_TOPIC_ID_ERROR);
                }
                session.update(request.topics(), request.forgottenTopicsData());
                if (session.size() == 0) {
                    // Everything forgotten: the session ends and this fetch is answered like a sessionless one.
                    remove(session.id);
                    return FetchContext.sessionless(List.of());
                }
                touch(session);
                session.epoch = nextEpoch(session.epoch);
                return FetchContext.incremental(session);
            }
        }
    }

    /**
     * A new session over the partitions a full request fetched (created when its response is ready, as
     * Apache does); its id, or 0 when the cache is full of sessions that may not be evicted for it.
     */
    synchronized FetchSession maybeCreate(List<FetchRequestData.FetchTopic> topics, boolean usesTopicIds) {
        var partitions = FetchSession.partitionsOf(topics);
        if (sessions.size() >= slots && !tryEvict(partitions.size())) {
            return null;
        }
        int id;
        do {
            id = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
        } while (sessions.containsKey(id));
        FetchSession session = new FetchSession(id, usesTopicIds, partitions);
        sessions.put(id, session);
        touch(session);
        return session;
    }

    private boolean tryEvict(int newSize) {
        Map.Entry<LastUsed, FetchSession> oldest = byLastUse.firstEntry();
        if (oldest == null) {
            return false;
        }
        if (clockMs.getAsLong() - oldest.getKey().ms() > EVICTION_MS) {
            remove(oldest.getValue().id);
            return true;
        }
        Map.Entry<Evictable, FetchSession> smallest = bySize.firstEntry();
        // Apache compares (size, id) with the new session's id as 0: an equal size never evicts.
        if (new Evictable(newSize, 0).compareTo(smallest.getKey()) < 0) {
            return false;
        }
        remove(smallest.getValue().id);
        return true;
    }

    private void touch(FetchSession session) {
        unindex(session.id);
        LastUsed used = new LastUsed(clockMs.getAsLong(), session.id);
        Evictable evictable = new Evictable(session.size(), session.id);
        lastUsedOf.put(session.id, used);
        evictableOf.put(session.id, evictable);
        byLastUse.put(used, session);
        bySize.put(evictable, session);
    }

    private synchronized void remove(int id) {
        if (sessions.remove(id) != null) {
            unindex(id);
        }
    }

    private void unindex(int id) {
        LastUsed used = lastUsedOf.remove(id);
        if (used != null) {
            byLastUse.remove(used);
        }
        Evictable evictable = evictableOf.remove(id);
        if (evictable != null) {
            bySize.remove(evictable);
        }
    }

    /** Live sessions (tests and the request-size probe). */
    public synchronized int size() {
        return sessions.size();
    }
}
