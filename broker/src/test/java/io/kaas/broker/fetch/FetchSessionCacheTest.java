package io.kaas.broker.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The session cache's bounds and eviction, as Apache's FetchSessionCache (KIP-227). */
class FetchSessionCacheTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final FetchSessionCache cache = new FetchSessionCache(2, now::get);

    /** A full fetch of {@code size} partitions; the id of the session it created (0: none). */
    private int open(int size) {
        FetchRequestData r = new FetchRequestData().setSessionEpoch(0);
        FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopic("t");
        FetchResponseData.FetchableTopicResponse tr = new FetchResponseData.FetchableTopicResponse().setTopic("t");
        for (int p = 0; p < size; p++) {
            t.partitions().add(new FetchRequestData.FetchPartition().setPartition(p));
            tr.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(p));
        }
        r.topics().add(t);
        FetchContext ctx = cache.newContext(r, (short) 12);
        return ctx.finish(new FetchResponseData().setResponses(new java.util.ArrayList<>(java.util.List.of(tr))))
                .sessionId();
    }

    private Errors use(int session, int epoch) {
        return cache.newContext(new FetchRequestData().setSessionId(session).setSessionEpoch(epoch), (short) 12)
                .error();
    }

    @Test
    void aFullCacheEvictsTheSmallestSessionForALargerOneOnly() {
        int big = open(5);
        int small = open(2);
        assertThat(cache.size()).isEqualTo(2);
        int middle = open(3);
        assertThat(middle).isNotZero();
        assertThat(use(small, 1)).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(open(3)).as("an equal size evicts nothing").isZero();
        assertThat(open(1)).isZero();
        assertThat(use(big, 1)).isEqualTo(Errors.NONE);
        assertThat(use(middle, 1)).isEqualTo(Errors.NONE);
    }

    @Test
    void aStaleSessionIsEvictedFirstLeastRecentlyUsedFirst() {
        int a = open(5);
        now.addAndGet(1_000);
        int b = open(5);
        now.addAndGet(FetchSessionCache.EVICTION_MS + 1);
        assertThat(use(b, 1)).isEqualTo(Errors.NONE);
        int c = open(1);
        assertThat(c).as("a small session takes the stale one's slot").isNotZero();
        assertThat(use(a, 1)).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(use(b, 2)).isEqualTo(Errors.NONE);
    }

    @Test
    void epochsAdvanceAndWrapToOne() {
        int s = open(1);
        assertThat(use(s, 1)).isEqualTo(Errors.NONE);
        assertThat(use(s, 1)).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH);
        assertThat(use(s, 2)).isEqualTo(Errors.NONE);
        assertThat(FetchSessionCache.nextEpoch(Integer.MAX_VALUE)).isEqualTo(1);
        assertThat(FetchSessionCache.nextEpoch(0)).isEqualTo(1);
    }

    @Test
    void zeroSlotsCreateNoSession() {
        FetchSessionCache none = new FetchSessionCache(0, now::get);
        FetchContext ctx = none.newContext(new FetchRequestData().setSessionEpoch(0), (short) 12);
        assertThat(ctx.finish(new FetchResponseData()).sessionId()).isZero();
        assertThat(none.size()).isZero();
    }
}
