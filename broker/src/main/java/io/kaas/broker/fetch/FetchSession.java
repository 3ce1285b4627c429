package io.kaas.broker.fetch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;

/**
 * One incremental fetch session (KIP-227): the partitions a client fetches, with the fetch position it last
 * sent for each and the offsets the broker last told it, so that a request names only what changed and a
 * response carries only what changed. Guarded by its own monitor; {@link FetchSessionCache} owns its
 * lifetime (id, last use, eviction).
 */
final class FetchSession {
    /** A partition as a request names it: by topic name before Fetch v13, by topic id from v13 (the other field is empty). */
    record PartitionKey(String topic, Uuid topicId, int partition) {}

    /** What the session remembers of one partition. */
    static final class CachedPartition {
        final PartitionKey key;
        long fetchOffset;
        int maxBytes;
        long logStartOffset;
        int currentLeaderEpoch;
        int lastFetchedEpoch;
        /** Last values sent to the client; -1 after an error, so the partition is sent again once it clears. */
        long highWatermark = -1;

        long lastStableOffset = -1;
        long sentLogStartOffset = -1;

        CachedPartition(PartitionKey key, FetchRequestData.FetchPartition p) {
            this.key = key;
            update(p);
        }

        void update(FetchRequestData.FetchPartition p) {
            fetchOffset = p.fetchOffset();
            maxBytes = p.partitionMaxBytes();
            logStartOffset = p.logStartOffset();
            currentLeaderEpoch = p.currentLeaderEpoch();
            lastFetchedEpoch = p.lastFetchedEpoch();
        }

        /**
         * Apache's rule ({@code CachedPartition.maybeUpdateResponseData}): a partition is in an incremental
         * response when it has records, an error, or its high watermark, last stable offset or log start
         * changed since last sent. Remembers what is sent.
         */
        boolean mustRespond(FetchResponseData.PartitionData sent) {
            boolean must = wouldRespond(sent);
            if (sent.errorCode() != 0) {
                highWatermark = -1;
                return true;
            }
            highWatermark = sent.highWatermark();
            lastStableOffset = sent.lastStableOffset();
            sentLogStartOffset = sent.logStartOffset();
            return must;
        }

        /** {@link #mustRespond} without remembering anything (for sizing a response that may not be sent). */
        boolean wouldRespond(FetchResponseData.PartitionData sent) {
            return (sent.records() != null && sent.records().sizeInBytes() > 0)
                    || sent.errorCode() != 0
                    || highWatermark != sent.highWatermark()
                    || lastStableOffset != sent.lastStableOffset()
                    || sentLogStartOffset != sent.logStartOffset();
        }

        FetchRequestData.FetchPartition asRequest() {
            return new FetchRequestData.FetchPartition()
                    .setPartition(key.partition())
                    .setFetchOffset(fetchOffset)
                    .setPartitionMaxBytes(maxBytes)
                    .setLogStartOffset(logStartOffset)
                    .setCurrentLeaderEpoch(currentLeaderEpoch)
                    .setLastFetchedEpoch(lastFetchedEpoch);
        }
    }

    final int id;
    final boolean usesTopicIds;
    /** The epoch the next request must carry. */
    int epoch = FetchSessionCache.nextEpoch(FetchSessionCache.INITIAL_EPOCH);
    /** Iteration order is response order; a partition that returned records moves to the end (KIP-227 fairness). */
    private final LinkedHashMap<PartitionKey, CachedPartition> partitions;

    FetchSession(int id, boolean usesTopicIds, LinkedHashMap<PartitionKey, CachedPartition> partitions) {
        this.id = id;
        this.usesTopicIds = usesTopicIds;
        this.partitions = partitions;
    }

    int size() {
        return partitions.size();
    }

    /** Applies an incremental request: named partitions are added or updated, forgotten ones removed. */
    void update(List<FetchRequestData.FetchTopic> topics, List<FetchRequestData.ForgottenTopic> forgotten) {
        for (FetchRequestData.FetchTopic t : topics) {
            for (FetchRequestData.FetchPartition p : t.partitions()) {
                PartitionKey key = new PartitionKey(t.topic(), t.topicId(), p.partition());
                CachedPartition cached = partitions.get(key);
                if (cached == null) {
                    partitions.put(key, new CachedPartition(key, p));
                } else {
                    cached.update(p);
                }
            }
        }
        for (FetchRequestData.ForgottenTopic f : forgotten) {
            for (int partition : f.partitions()) {
                partitions.remove(new PartitionKey(f.topic(), f.topicId(), partition));
            }
        }
    }

    /** Every partition of the session as a request would name it, consecutive partitions of a topic grouped. */
    List<FetchRequestData.FetchTopic> asRequest() {
        List<FetchRequestData.FetchTopic> out = new ArrayList<>();
        FetchRequestData.FetchTopic current = null;
        for (CachedPartition c : partitions.values()) {
            if (current == null
                    || !current.topic().equals(c.key.topic())
                    || !current.topicId().equals(c.key.topicId())) {
                current = new FetchRequestData.FetchTopic()
                        .setTopic(c.key.topic())
                        .setTopicId(c.key.topicId());
                out.add(current);
            }
            current.partitions().add(c.asRequest());
        }
        return out;
    }

    /** After a full response created the session: remember what was sent. */
    void rememberSent(FetchResponseData response) {
        for (FetchResponseData.FetchableTopicResponse t : response.responses()) {
            for (FetchResponseData.PartitionData sent : t.partitions()) {
                CachedPartition cached =
                        partitions.get(new PartitionKey(t.topic(), t.topicId(), sent.partitionIndex()));
                if (cached != null) {
                    cached.mustRespond(sent);
                }
            }
        }
    }

    /** An incremental response: drops the partitions with nothing new, remembers the rest. */
    void keepChanged(FetchResponseData response) {
        List<CachedPartition> moved = new ArrayList<>();
        for (FetchResponseData.FetchableTopicResponse t : response.responses()) {
            t.partitions().removeIf(sent -> {
                CachedPartition cached =
                        partitions.get(new PartitionKey(t.topic(), t.topicId(), sent.partitionIndex()));
                if (cached == null) {
                    return true;
                }
                boolean respond = cached.mustRespond(sent);
                if (respond && sent.records() != null && sent.records().sizeInBytes() > 0) {
                    moved.add(cached);
                }
                return !respond;
            });
        }
        response.responses().removeIf(t -> t.partitions().isEmpty());
        for (CachedPartition c : moved) {
            partitions.remove(c.key);
            partitions.put(c.key, c);
        }
    }

    /** What {@link #keepChanged} would leave of {@code response}, as a new response; nothing is remembered. */
    FetchResponseData changedView(FetchResponseData response) {
        FetchResponseData out = new FetchResponseData();
        for (FetchResponseData.FetchableTopicResponse t : response.responses()) {
            FetchResponseData.FetchableTopicResponse copy = new FetchResponseData.FetchableTopicResponse()
                    .setTopic(t.topic())
                    .setTopicId(t.topicId());
            for (FetchResponseData.PartitionData sent : t.partitions()) {
                CachedPartition cached =
                        partitions.get(new PartitionKey(t.topic(), t.topicId(), sent.partitionIndex()));
                if (cached != null && cached.wouldRespond(sent)) {
                    copy.partitions().add(sent);
                }
            }
            if (!copy.partitions().isEmpty()) {
                out.responses().add(copy);
            }
        }
        return out;
    }

    /** The partitions of a full request, in request order. */
    static LinkedHashMap<PartitionKey, CachedPartition> partitionsOf(List<FetchRequestData.FetchTopic> topics) {
        LinkedHashMap<PartitionKey, CachedPartition> out = new LinkedHashMap<>();
        for (FetchRequestData.FetchTopic t : topics) {
            for (FetchRequestData.FetchPartition p : t.partitions()) {
                PartitionKey key = new PartitionKey(t.topic(), t.topicId(), p.partition());
                out.put(key, new CachedPartition(key, p));
            }
        }
        return out;
    }
}
