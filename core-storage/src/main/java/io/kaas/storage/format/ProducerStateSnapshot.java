package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/** {@code <partition>/producer-state.snapshot}: the idempotence windows, per producer id. */
@JsonPropertyOrder({"version", "entries"})
public record ProducerStateSnapshot(int version, List<Entry> entries) {
    public static final String FILE_NAME = "producer-state.snapshot";
    public static final int VERSION = 1;

    public ProducerStateSnapshot {
        entries = List.copyOf(entries);
    }

    /**
     * One producer: its epoch, its last batches, and the coordinator epoch of the last transaction marker written for it
     * ({@code coordinator_epoch}; -1 for none, and in snapshots written before it was kept).
     */
    @JsonPropertyOrder({"producer_id", "epoch", "recent", "coordinator_epoch"})
    public record Entry(
            @JsonProperty("producer_id") long producerId,
            @JsonProperty("epoch") short epoch,
            @JsonProperty("recent") List<Batch> recent,

            @JsonProperty("coordinator_epoch")
            @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = NoCoordinatorEpoch.class)
            Integer coordinatorEpoch) {
        public static final int NO_COORDINATOR_EPOCH = -1;

        public Entry {
            recent = List.copyOf(recent);
            coordinatorEpoch = coordinatorEpoch == null ? NO_COORDINATOR_EPOCH : coordinatorEpoch;
        }
    }

    /** Jackson's value filter: none is not written, so a producer no marker was written for reads as before. */
    static final class NoCoordinatorEpoch {
        @Override
        public boolean equals(Object value) {
            return value instanceof Integer i && i == Entry.NO_COORDINATOR_EPOCH;
        }

        @Override
        public int hashCode() {
            return 0;
        }
    }

    @JsonPropertyOrder({"first_seq", "last_seq", "base_offset"})
    public record Batch(
            @JsonProperty("first_seq") int firstSeq,
            @JsonProperty("last_seq") int lastSeq,
            @JsonProperty("base_offset") long baseOffset) {}
}
