package io.kaas.broker.share;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.storage.FetchResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.PartitionState;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.AbortedTransaction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.coordinator.group.ShareGroupAutoOffsetResetStrategy;

/**
 * What ShareFetch and ShareAcknowledge do to a share group's partitions: apply a member's
 * acknowledgements, and acquire records for it from the log (below the high watermark, or the last
 * stable offset under {@code share.isolation.level=read_committed}, records of aborted transactions and
 * control batches archived, never delivered). Each change is persisted before it is answered.
 */
public final class ShareFetches {
    /** A partition's acquired records and the log bytes that hold them. */
    public record Acquisition(
            TopicIdPartition partition, MemoryRecords records, List<SharePartition.Acquired> acquired) {}

    /** One acknowledgement batch of a request. */
    public record Ack(long firstOffset, long lastOffset, List<Byte> types) {}

    private final ShareGroups groups;
    private final TopicCatalog topics;

    public ShareFetches(ShareGroups groups, TopicCatalog topics) {
        this.groups = groups;
        this.topics = topics;
    }

    public ShareGroups groups() {
        return groups;
    }

    /** The partition a request names, when its topic exists and has it. */
    public Optional<TopicIdPartition> resolve(Uuid topicId, int partition) {
        Optional<TopicInfo> t = topics.topicById(
                new java.util.UUID(topicId.getMostSignificantBits(), topicId.getLeastSignificantBits()));
        if (t.isEmpty() || partition < 0 || partition >= t.get().partitions()) {
            return Optional.empty();
        }
        return Optional.of(ShareGroups.key(t.get(), partition));
    }

    /** Whether {@code memberId} is a member of share group {@code groupId} now. */
    public boolean isMember(String groupId, String memberId) {
        return groups.group(groupId).map(g -> g.member(memberId) != null).orElse(false);
    }

    /** Applies a member's acknowledgements of one partition; the first error, or NONE. */
    public Errors acknowledge(String groupId, String memberId, TopicIdPartition tp, List<Ack> acks) {
        Optional<ShareGroup> g = groups.group(groupId);
        if (g.isEmpty()) {
            return Errors.INVALID_RECORD_STATE;
        }
        SharePartition.Limits limits = groups.limits(groupId);
        long now = System.currentTimeMillis();
        Errors first = Errors.NONE;
        synchronized (g.get()) {
            SharePartition sp = g.get().existingPartition(tp);
            if (sp == null) {
                return Errors.INVALID_RECORD_STATE;
            }
            boolean changed = false;
            for (Ack a : acks) {
                List<AcknowledgeType> types = new ArrayList<>();
                for (byte code : a.types()) {
                    Optional<AcknowledgeType> t = AcknowledgeType.ofCode(code);
                    if (t.isEmpty()) {
                        types = null;
                        break;
                    }
                    types.add(t.get());
                }
                Errors e = types == null
                        ? Errors.INVALID_REQUEST
                        : sp.acknowledge(memberId, a.firstOffset(), a.lastOffset(), types, now, limits);
                changed |= e == Errors.NONE;
                if (e != Errors.NONE && first == Errors.NONE) {
                    first = e;
                }
            }
            if (changed) {
                g.get().persist();
            }
        }
        return first;
    }

    /**
     * Acquires for {@code memberId} up to {@code maxRecords} records over {@code partitions}, reading at
     * most about {@code maxBytes} (the first partition with records may exceed it).
     */
    public List<Acquisition> acquire(
            String groupId, String memberId, List<TopicIdPartition> partitions, int maxRecords, int maxBytes) {
        Optional<ShareGroup> g = groups.group(groupId);
        List<Acquisition> out = new ArrayList<>();
        if (g.isEmpty()) {
            return out;
        }
        GroupConfig config = groups.config(groupId);
        SharePartition.Limits limits = ShareGroup.limits(config);
        boolean readCommitted =
                config.shareIsolationLevel().orElse(IsolationLevel.READ_UNCOMMITTED) == IsolationLevel.READ_COMMITTED;
        int remainingRecords = maxRecords;
        long remainingBytes = maxBytes;
        long now = System.currentTimeMillis();
        synchronized (g.get()) {
            boolean changed = false;
            for (TopicIdPartition tp : partitions) {
                if (remainingRecords <= 0 || (remainingBytes <= 0 && !out.isEmpty())) {
                    break;
                }
                PartitionLog log = topics.partition(tp.topic(), tp.partition());
                PartitionState st = log.state();
                long cap = readCommitted ? st.lastStableOffset() : st.highWatermark();
                SharePartition sp = g.get().existingPartition(tp);
                if (sp == null) {
                    sp = g.get().partition(tp, initialStart(config, st));
                    changed = true;
                }
                sp.logStartMovedTo(st.logStartOffset());
                changed |= sp.expireLocks(now, limits);
                if (!sp.canAcquire(cap, limits)) {
                    continue;
                }
                long from = sp.nextFetchOffset();
                if (from >= cap && from == sp.endOffset()) {
                    continue;
                }
                FetchResult read = log.read(from, (int) Math.max(1, Math.min(Integer.MAX_VALUE, remainingBytes)), cap);
                if (read.sizeInBytes() == 0) {
                    continue;
                }
                MemoryRecords records = MemoryRecords.readableRecords(read.records());
                List<AbortedTransaction> aborted = readCommitted ? log.abortedTransactions(from, cap) : List.of();
                List<SharePartition.Batch> batches = new ArrayList<>();
                for (RecordBatch b : records.batches()) {
                    boolean deliverable = !b.isControlBatch() && !(b.isTransactional() && isAborted(b, aborted));
                    batches.add(new SharePartition.Batch(b.baseOffset(), b.lastOffset(), deliverable));
                }
                List<SharePartition.Acquired> acquired =
                        sp.acquire(memberId, batches, remainingRecords, cap, now, limits);
                changed = true; // archived markers and new end offset as well
                if (!acquired.isEmpty()) {
                    out.add(new Acquisition(tp, records, acquired));
                    for (SharePartition.Acquired a : acquired) {
                        remainingRecords -= (int) (a.lastOffset() - a.firstOffset() + 1);
                    }
                    remainingBytes -= read.sizeInBytes();
                }
            }
            if (changed) {
                g.get().persist();
            }
        }
        return out;
    }

    private static boolean isAborted(RecordBatch b, List<AbortedTransaction> aborted) {
        for (AbortedTransaction t : aborted) {
            if (t.producerId() == b.producerId()
                    && t.firstOffset() <= b.baseOffset()
                    && b.baseOffset() <= t.lastOffset()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Where a group starts reading a partition it never read: {@code share.auto.offset.reset}'s
     * {@code latest} (the high watermark, Apache's default) or {@code earliest} (the log start).
     * {@code by_duration:} starts at the log start here (see docs/share-groups.md).
     */
    private static long initialStart(GroupConfig config, PartitionState st) {
        ShareGroupAutoOffsetResetStrategy reset =
                config.shareAutoOffsetReset().orElse(GroupConfig.defaultShareAutoOffsetReset());
        return reset.type() == ShareGroupAutoOffsetResetStrategy.StrategyType.LATEST
                ? st.highWatermark()
                : st.logStartOffset();
    }

    /** Acknowledge types by partition, for tests and tools. */
    static Map<TopicIdPartition, SharePartition> partitionsOf(ShareGroup g) {
        return new LinkedHashMap<>(g.partitions());
    }
}
