package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.ApacheTopicConfigs;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.ErrorMapping;
import io.kaas.protocol.RequestContext;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.PartitionState;
import io.kaas.storage.StoredBatch;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.CodecTripwire;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListOffsets, answering as Apache's {@code UnifiedLog.fetchOffsetByTimestamp} does with no tiered storage:
 * earliest (-2) and earliest-local (-4, KIP-405: all of the log is local) are log start; latest (-1) is the
 * high watermark, or the last stable offset for read_committed; by timestamp (KIP-79) it is the first record
 * whose timestamp is ≥ the target and max-timestamp (-3, KIP-734) the first record holding the largest
 * timestamp, both exact to the record ({@link RecordTimestampSearch} reads the timestamps inside the one
 * spanning batch) and only below the high watermark (last stable offset); latest-tiered (-5, KIP-1005) and
 * earliest-pending-upload (-6, KIP-1023) are offset -1, timestamp -1, epoch -1, as Apache answers when
 * remote storage is off.
 */
public final class ListOffsetsHandler implements ApiHandler<ListOffsetsRequestData> {
    static final long LATEST = -1,
            EARLIEST = -2,
            MAX_TIMESTAMP = -3,
            EARLIEST_LOCAL = -4,
            LATEST_TIERED = -5,
            EARLIEST_PENDING_UPLOAD = -6;
    /** The leader epoch field exists from v4; writing a non-default value at older versions fails. */
    private static final short FIRST_LEADER_EPOCH_VERSION = 4;

    private final TopicCatalog topics;
    private final RecordTimestampSearch search;

    /** @param tripwire hears the records that lookups by timestamp decode */
    public ListOffsetsHandler(TopicCatalog topics, CodecTripwire tripwire) {
        this.topics = topics;
        this.search = new RecordTimestampSearch(tripwire);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ListOffsetsRequestData request) {
        boolean readCommitted = request.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        for (ListOffsetsRequestData.ListOffsetsTopic t : request.topics()) {
            ListOffsetsResponseData.ListOffsetsTopicResponse tr =
                    new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(t.name());
            response.topics().add(tr);
            Optional<TopicInfo> topic = topics.topic(t.name());
            boolean allowed = ctx.allowed(AclOperation.DESCRIBE, ResourceType.TOPIC, t.name());
            for (ListOffsetsRequestData.ListOffsetsPartition p : t.partitions()) {
                ListOffsetsResponseData.ListOffsetsPartitionResponse pr =
                        new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                .setPartitionIndex(p.partitionIndex())
                                .setTimestamp(-1)
                                .setOffset(-1)
                                .setLeaderEpoch(-1);
                tr.partitions().add(pr);
                if (!allowed) {
                    pr.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (!TopicCatalog.hasPartition(topic, p.partitionIndex())) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                try {
                    TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                    // Latest and earliest come from memory; only lookups by timestamp read the log.
                    PartitionState state = topics.engine().partitionState(tp);
                    long ts = p.timestamp();
                    boolean withEpoch = ctx.apiVersion() >= FIRST_LEADER_EPOCH_VERSION;
                    long lastFetchable = readCommitted ? state.lastStableOffset() : state.highWatermark();
                    if (ts == LATEST || ts == EARLIEST || ts == EARLIEST_LOCAL) {
                        pr.setOffset(ts == LATEST ? lastFetchable : state.logStartOffset());
                        if (withEpoch) {
                            pr.setLeaderEpoch(state.leaderEpoch());
                        }
                    } else if (ts != LATEST_TIERED && ts != EARLIEST_PENDING_UPLOAD) {
                        PartitionLog log = topics.partition(t.name(), p.partitionIndex());
                        int maxDecompressed = maxDecompressedBytes(topic.get());
                        Optional<RecordTimestampSearch.Found> found = ts == MAX_TIMESTAMP
                                ? log.firstBatchWithMaxTimestamp()
                                        .flatMap(b -> search.firstWithMaxTimestamp(b, maxDecompressed))
                                : byTimestamp(log, ts, maxDecompressed);
                        // Apache answers only with records a consumer may read.
                        found.filter(f -> f.offset() < lastFetchable).ifPresent(f -> {
                            pr.setTimestamp(f.timestamp()).setOffset(f.offset());
                            if (withEpoch) {
                                pr.setLeaderEpoch(f.leaderEpoch());
                            }
                        });
                    }
                } catch (RuntimeException e) {
                    pr.setErrorCode(ErrorMapping.toKafka(e).code());
                }
            }
        }
        return CompletableFuture.completedFuture(response);
    }

    /**
     * KIP-79: the first record whose timestamp is ≥ {@code ts}. The first batch whose max timestamp reaches it
     * holds that record, unless log start cuts into the batch after the records that qualify: then the next one.
     */
    private Optional<RecordTimestampSearch.Found> byTimestamp(PartitionLog log, long ts, int maxDecompressed) {
        long from = 0;
        while (true) {
            Optional<StoredBatch> batch = log.firstBatchWithMaxTimestampAtLeast(ts, from);
            if (batch.isEmpty()) {
                return Optional.empty();
            }
            StoredBatch b = batch.get();
            Optional<RecordTimestampSearch.Found> found =
                    search.firstAtLeast(b, ts, b.logStartOffset(), maxDecompressed);
            if (found.isPresent()) {
                return found;
            }
            from = b.header().nextOffset();
        }
    }

    /** The topic's max.decompressed.message.bytes, which Apache applies to these lookups too. */
    private static int maxDecompressedBytes(TopicInfo topic) {
        String name = TopicConfig.MAX_DECOMPRESSED_MESSAGE_BYTES_CONFIG;
        return Integer.parseInt(
                topic.config().otherConfigs().getOrDefault(name, ApacheTopicConfigs.defaultValue(name)));
    }
}
