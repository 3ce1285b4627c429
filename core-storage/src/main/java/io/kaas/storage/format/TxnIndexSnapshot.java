package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/** {@code <partition>/txn-index.snapshot}: open transactions and aborted ranges, for read_committed Fetch. */
@JsonPropertyOrder({"version", "open", "aborted"})
public record TxnIndexSnapshot(int version, List<Open> open, List<Aborted> aborted) {
    public static final String FILE_NAME = "txn-index.snapshot";
    public static final int VERSION = 1;

    public TxnIndexSnapshot {
        open = List.copyOf(open);
        aborted = List.copyOf(aborted);
    }

    @JsonPropertyOrder({"producer_id", "first_offset"})
    public record Open(
            @JsonProperty("producer_id") long producerId,
            @JsonProperty("first_offset") long firstOffset) {}

    @JsonPropertyOrder({"producer_id", "first_offset", "last_offset"})
    public record Aborted(
            @JsonProperty("producer_id") long producerId,
            @JsonProperty("first_offset") long firstOffset,
            @JsonProperty("last_offset") long lastOffset) {}
}
