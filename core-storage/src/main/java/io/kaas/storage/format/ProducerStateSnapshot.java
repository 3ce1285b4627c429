package io.kaas.storage.format;

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

    @JsonPropertyOrder({"producer_id", "epoch", "recent"})
    public record Entry(@JsonProperty("producer_id") long producerId, @JsonProperty("epoch") short epoch,
                        @JsonProperty("recent") List<Batch> recent) {
        public Entry {
            recent = List.copyOf(recent);
        }
    }

    @JsonPropertyOrder({"first_seq", "last_seq", "base_offset"})
    public record Batch(@JsonProperty("first_seq") int firstSeq, @JsonProperty("last_seq") int lastSeq,
                        @JsonProperty("base_offset") long baseOffset) {}
}
