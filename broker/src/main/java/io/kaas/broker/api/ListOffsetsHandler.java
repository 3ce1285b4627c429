package io.kaas.broker.api;

import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.storage.PartitionState;
import io.kaas.storage.TimestampOffset;
import io.kaas.storage.TopicInfo;
import io.kaas.storage.TopicPartition;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListOffsets: earliest (-2, and earliest-local -4), latest (-1: high watermark, or last stable
 * offset for read_committed), max-timestamp (-3, KIP-734) and lookup by timestamp (first batch whose
 * max timestamp is at or after it). Tiered-storage queries (-5, -6) answer with log start: nothing is tiered.
 */
public final class ListOffsetsHandler implements ApiHandler<ListOffsetsRequestData> {
    static final long LATEST = -1, EARLIEST = -2, MAX_TIMESTAMP = -3, EARLIEST_LOCAL = -4;
    /** The leader epoch field exists from v4; writing a non-default value at older versions fails. */
    private static final short FIRST_LEADER_EPOCH_VERSION = 4;

    private final TopicCatalog topics;

    public ListOffsetsHandler(TopicCatalog topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, ListOffsetsRequestData request) {
        boolean readCommitted = request.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        for (ListOffsetsRequestData.ListOffsetsTopic t : request.topics()) {
            ListOffsetsResponseData.ListOffsetsTopicResponse tr = new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(t.name());
            response.topics().add(tr);
            Optional<TopicInfo> topic = topics.topic(t.name());
            for (ListOffsetsRequestData.ListOffsetsPartition p : t.partitions()) {
                ListOffsetsResponseData.ListOffsetsPartitionResponse pr = new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                        .setPartitionIndex(p.partitionIndex()).setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1);
                tr.partitions().add(pr);
                if (!TopicCatalog.hasPartition(topic, p.partitionIndex())) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                try {
                    TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                    // Latest and earliest come from memory; only lookups by timestamp read the log.
                    PartitionState state = topics.engine().partitionState(tp);
                    if (ctx.apiVersion() >= FIRST_LEADER_EPOCH_VERSION) {
                        pr.setLeaderEpoch(state.leaderEpoch());
                    }
                    long ts = p.timestamp();
                    if (ts == LATEST) {
                        pr.setOffset(readCommitted ? state.lastStableOffset() : state.highWatermark());
                    } else if (ts == MAX_TIMESTAMP) {
                        Optional<TimestampOffset> max = topics.partition(t.name(), p.partitionIndex()).maxTimestamp();
                        max.ifPresent(m -> pr.setTimestamp(m.timestamp()).setOffset(m.offset()));
                    } else if (ts < 0) {
                        pr.setOffset(state.logStartOffset());
                    } else {
                        Optional<TimestampOffset> found = topics.partition(t.name(), p.partitionIndex()).offsetForTimestamp(ts);
                        found.ifPresent(f -> pr.setTimestamp(f.timestamp()).setOffset(f.offset()));
                    }
                } catch (RuntimeException e) {
                    pr.setErrorCode(ErrorMapping.toKafka(e).code());
                }
            }
        }
        return CompletableFuture.completedFuture(response);
    }
}
