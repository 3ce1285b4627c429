package io.kaas.broker.share;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.fetch.FetchBudget;
import io.kaas.protocol.ErrorMapping;
import io.kaas.storage.FetchResult;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.PartitionState;
import io.kaas.storage.ReadLimit;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.format.AbortedTransaction;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
 * control batches archived, never delivered). Each change is handed to the state store under the group's monitor
 * and its durability is a future the handler waits for before it answers (group commit: see {@link ShareStateStore}).
 */
public final class ShareFetches {
    /** A partition's acquired records and the log bytes that hold them. */
    public record Acquisition(
            TopicIdPartition partition, MemoryRecords records, List<SharePartition.Acquired> acquired) {}

    /** A partition a waiting ShareFetch wakes for when its high watermark moves past {@code highWatermark}. */
    public record Waitable(PartitionLog log, long highWatermark) {}

    /** One acquisition attempt: what was acquired, when that is durable, and what to wait on if nothing was. */
    public record Attempt(List<Acquisition> acquired, CompletableFuture<Void> durable, List<Waitable> waitable) {}

    /** One acknowledgement batch of a request. */
    public record Ack(long firstOffset, long lastOffset, List<Byte> types) {}

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final ShareGroups groups;
    private final TopicCatalog topics;
    // What each partition's records weighed at its last share read, to size the next one.
    private final ConcurrentHashMap<TopicIdPartition, ReadSize> readSizes = new ConcurrentHashMap<>();

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

    /**
     * Applies a member's acknowledgements of one partition; completes with the first error, or NONE, once the change
     * is durable (with the storage error when it cannot be made so).
     */
    public CompletableFuture<Errors> acknowledge(String groupId, String memberId, TopicIdPartition tp, List<Ack> acks) {
        Optional<ShareGroup> g = groups.group(groupId);
        if (g.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.INVALID_RECORD_STATE);
        }
        SharePartition.Limits limits = groups.limits(groupId);
        long now = System.currentTimeMillis();
        Errors first = Errors.NONE;
        CompletableFuture<Void> durable = DONE;
        synchronized (g.get()) {
            SharePartition sp = g.get().existingPartition(tp);
            if (sp == null) {
                return CompletableFuture.completedFuture(Errors.INVALID_RECORD_STATE);
            }
            boolean changed = false;
            // What may let a waiting fetch acquire: a release, or room in a full in-flight window.
            boolean freesRecords = sp.endOffset() - sp.startOffset() >= limits.maxInFlightRecords();
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
                freesRecords |= e == Errors.NONE && types.contains(AcknowledgeType.RELEASE);
                if (e != Errors.NONE && first == Errors.NONE) {
                    first = e;
                }
            }
            if (changed) {
                durable = g.get().persist();
                if (freesRecords) {
                    g.get().signalReleased();
                }
            }
        }
        Errors result = first;
        return durable.handle((v, e) -> e == null ? result : ErrorMapping.toKafka(e));
    }

    /**
     * Acquires for {@code memberId} up to {@code maxRecords} records over {@code partitions}, within the response's
     * {@code maxBytes} as KIP-74 bounds a fetch ({@link FetchBudget}: only the first batch of the first partition
     * with records may exceed a limit), each partition bounded by an equal share of {@code maxBytes} (Apache's
     * uniform partition-max-bytes strategy for ShareFetch, KIP-932). The attempt's {@code durable} completes once
     * the acquisitions are in the state files; its {@code waitable} says what to wait on when nothing was acquired.
     */
    public Attempt acquire(
            String groupId, String memberId, List<TopicIdPartition> partitions, int maxRecords, int maxBytes) {
        Optional<ShareGroup> g = groups.group(groupId);
        List<Acquisition> out = new ArrayList<>();
        List<Waitable> waitable = new ArrayList<>();
        if (g.isEmpty()) {
            return new Attempt(out, DONE, waitable);
        }
        GroupConfig config = groups.config(groupId);
        SharePartition.Limits limits = ShareGroup.limits(config);
        boolean readCommitted =
                config.shareIsolationLevel().orElse(IsolationLevel.READ_UNCOMMITTED) == IsolationLevel.READ_COMMITTED;
        long responseMax = maxBytes <= 0 ? Integer.MAX_VALUE : maxBytes;
        FetchBudget budget = new FetchBudget(responseMax);
        int partitionMax = (int) Math.max(1, responseMax / Math.max(1, partitions.size()));
        int remainingRecords = maxRecords;
        long now = System.currentTimeMillis();
        CompletableFuture<Void> durable = DONE;
        synchronized (g.get()) {
            boolean changed = false;
            for (TopicIdPartition tp : partitions) {
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
                // Wake on an append past what this attempt saw (with read_committed and an open transaction, past
                // the high watermark: its marker moves it, so no busy loop).
                waitable.add(new Waitable(log, st.highWatermark()));
                if (remainingRecords <= 0 || !sp.canAcquire(cap, limits)) {
                    continue;
                }
                long from = sp.nextFetchOffset();
                if (from >= cap && from == sp.endOffset()) {
                    continue;
                }
                long endBefore = sp.endOffset();
                Read read = readAndAcquire(
                        sp,
                        tp,
                        log,
                        from,
                        cap,
                        budget,
                        partitionMax,
                        remainingRecords,
                        memberId,
                        now,
                        limits,
                        readCommitted);
                if (read == null) {
                    break;
                }
                // Acquired records, or records seen for the first time (archived markers among them) change the state.
                changed |= !read.acquired().isEmpty() || sp.endOffset() != endBefore;
                if (!read.acquired().isEmpty()) {
                    MemoryRecords sent = covering(read.records(), read.acquired());
                    out.add(new Acquisition(tp, sent, read.acquired()));
                    for (SharePartition.Acquired a : read.acquired()) {
                        remainingRecords -= (int) (a.lastOffset() - a.firstOffset() + 1);
                    }
                    budget.took(sent.sizeInBytes());
                }
            }
            if (changed) {
                durable = g.get().persist();
            }
        }
        return new Attempt(out, durable, waitable);
    }

    /** What one partition's reads returned and what was acquired from them. */
    private record Read(MemoryRecords records, List<SharePartition.Acquired> acquired) {}

    /**
     * Reads the partition from {@code from} and acquires from what was read. The first read is sized by what the
     * partition's records weighed before ({@link ReadSize}): about {@code wanted} records, not the partition's whole
     * share of the response's bytes, which would copy (and send) far more than a fetch of a few hundred records takes.
     * When that acquired fewer than wanted and more is readable (the cap not reached, and available records or room
     * in the in-flight window left), it reads again from {@code from}, four times as much, up to {@code partitionMax}.
     * Null when the budget has no room left for the partition.
     */
    private Read readAndAcquire(
            SharePartition sp,
            TopicIdPartition tp,
            PartitionLog log,
            long from,
            long cap,
            FetchBudget budget,
            int partitionMax,
            int wanted,
            String memberId,
            long now,
            SharePartition.Limits limits,
            boolean readCommitted) {
        ReadSize size = readSizes.computeIfAbsent(tp, k -> new ReadSize());
        long bytes = Math.min(partitionMax, size.bytesFor(wanted));
        List<SharePartition.Acquired> acquired = new ArrayList<>();
        MemoryRecords records = MemoryRecords.EMPTY;
        int taken = 0;
        while (true) {
            Optional<ReadLimit> limit = budget.next((int) bytes);
            if (limit.isEmpty()) {
                return acquired.isEmpty() ? null : new Read(records, acquired);
            }
            // Growing the read helps only while the estimate, not the partition's or the response's room, bounded it.
            boolean mayGrow = bytes < partitionMax && limit.get().maxBytes() >= bytes;
            FetchResult read = log.read(from, limit.get(), cap);
            if (read.sizeInBytes() == 0) { // nothing readable, or a batch larger than a strict limit
                if (!mayGrow || from >= cap) {
                    return new Read(records, acquired);
                }
                bytes = Math.min(partitionMax, bytes * 4);
                continue;
            }
            records = MemoryRecords.readableRecords(read.records());
            List<AbortedTransaction> aborted = readCommitted ? log.abortedTransactions(from, cap) : List.of();
            List<SharePartition.Batch> batches = new ArrayList<>();
            long lastRead = from - 1;
            int largest = 0;
            for (RecordBatch b : records.batches()) {
                boolean deliverable = !b.isControlBatch() && !(b.isTransactional() && isAborted(b, aborted));
                batches.add(new SharePartition.Batch(b.baseOffset(), b.lastOffset(), deliverable));
                lastRead = b.lastOffset();
                largest = Math.max(largest, b.sizeInBytes());
            }
            size.observe(read.sizeInBytes(), batches, largest);
            for (SharePartition.Acquired a : sp.acquire(memberId, batches, wanted - taken, cap, now, limits)) {
                acquired.add(a);
                taken += (int) (a.lastOffset() - a.firstOffset() + 1);
            }
            if (taken >= wanted || lastRead + 1 >= cap || !mayGrow || !sp.canAcquire(cap, limits)) {
                acquired.sort(Comparator.comparingLong(SharePartition.Acquired::firstOffset));
                return new Read(records, acquired);
            }
            bytes = Math.min(partitionMax, bytes * 4);
        }
    }

    /** What a partition's records weighed at its last share read: bytes per offset, and the largest batch seen. */
    private static final class ReadSize {
        /** Before any read: enough for a few hundred records of a few KiB, far below a partition's usual share. */
        private static final long FIRST_READ_BYTES = 1 << 20;

        private double bytesPerOffset;
        private long largestBatch;

        /** A read that should hold {@code records} records: their weight, and a batch more for the one cut through. */
        synchronized long bytesFor(int records) {
            if (largestBatch == 0) {
                return FIRST_READ_BYTES;
            }
            return Math.min(Integer.MAX_VALUE, (long) Math.ceil(records * bytesPerOffset) + largestBatch);
        }

        synchronized void observe(int bytes, List<SharePartition.Batch> batches, int largest) {
            if (batches.isEmpty()) {
                return;
            }
            long offsets = batches.get(batches.size() - 1).lastOffset()
                    - batches.get(0).baseOffset()
                    + 1;
            bytesPerOffset = (double) bytes / Math.max(1, offsets);
            largestBatch = Math.max(largestBatch, largest);
        }
    }

    /**
     * The batches of {@code records} that hold {@code acquired} records (sorted), a view of the same bytes: batches
     * before the first and after the last acquired record are not sent. Apache slices its share fetch response the
     * same way; the consumer delivers only acquired offsets either way.
     */
    static MemoryRecords covering(MemoryRecords records, List<SharePartition.Acquired> acquired) {
        long first = acquired.get(0).firstOffset();
        long last = acquired.get(acquired.size() - 1).lastOffset();
        int start = -1;
        int end = 0;
        int pos = 0;
        for (RecordBatch b : records.batches()) {
            int n = b.sizeInBytes();
            if (start < 0 && b.lastOffset() >= first) {
                start = pos;
            }
            pos += n;
            if (start >= 0) {
                end = pos;
            }
            if (b.lastOffset() >= last) {
                break;
            }
        }
        if (start <= 0 && end == records.sizeInBytes()) {
            return records;
        }
        ByteBuffer buf = records.buffer(); // a duplicate: its position is the first batch
        buf.limit(buf.position() + end).position(buf.position() + Math.max(0, start));
        return MemoryRecords.readableRecords(buf.slice());
    }

    /**
     * The group's release count ({@link ShareGroup#releases}), read before an attempt; -1 for a group not known.
     */
    public long releasesOf(String groupId) {
        return groups.group(groupId).map(ShareGroup::releases).orElse(-1L);
    }

    /** Runs {@code wake} at the group's next release after {@code seen}; false when there was one already. */
    public boolean wakeOnRelease(String groupId, long seen, Runnable wake) {
        return groups.group(groupId).map(g -> g.wakeOnRelease(seen, wake)).orElse(false);
    }

    public void cancelWake(String groupId, Runnable wake) {
        groups.group(groupId).ifPresent(g -> g.cancelWake(wake));
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
