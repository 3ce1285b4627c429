package io.kaas.storage.format;

/**
 * Every place in kaas that reads records out of a client's batch or rewrites a batch's bytes, by name.
 * The byte-opacity promise (Produce and Fetch never decode a record nor re-encode a batch; only
 * baseOffset and partitionLeaderEpoch, outside the CRC, are the broker's) is measured by counting each
 * site through a {@link CodecTripwire}: a site that is not here does not exist, and the Produce and Fetch
 * paths have none. The broker exports the counts as {@code kaas_codec_record_decode_total{site}} and
 * {@code kaas_codec_batch_reencode_total{site}} (docs/metrics.md).
 */
public enum CodecSite {
    /** ListOffsets by timestamp (KIP-79) and MAX_TIMESTAMP (KIP-734): the records of the one batch spanning the target. */
    LIST_OFFSETS_TIMESTAMP("list_offsets_timestamp", Kind.RECORD_DECODE),
    /** The cleaner's key map: the keys of each dirty batch it maps (compaction only). */
    CLEANER_KEY_MAP("cleaner_key_map", Kind.RECORD_DECODE),
    /** The cleaner's copy pass: each record its filter decides on (kafka-clients' {@code MemoryRecords.filterTo}). */
    CLEANER_FILTER("cleaner_filter", Kind.RECORD_DECODE),
    /** The cleaner reading a transaction marker's record to learn commit or abort. */
    CLEANER_TRANSACTION_MARKER("cleaner_transaction_marker", Kind.RECORD_DECODE),
    /** message.timestamp.type=LogAppendTime: the batch's timestamp type and max timestamp set, its CRC recomputed. */
    LOG_APPEND_TIME("log_append_time", Kind.BATCH_REENCODE),
    /** The cleaner rebuilding a batch that lost records (a batch it keeps whole is copied verbatim). */
    CLEANER_REBUILD("cleaner_rebuild", Kind.BATCH_REENCODE);

    /** What a site does to the bytes, and so which counter it feeds. */
    public enum Kind {
        /** Reads records out of a batch; counted in records (those of each batch it reads). */
        RECORD_DECODE,
        /** Writes a batch whose bytes differ from what the client sent; counted in batches. */
        BATCH_REENCODE
    }

    private final String label;
    private final Kind kind;

    CodecSite(String label, Kind kind) {
        this.label = label;
        this.kind = kind;
    }

    /** The {@code site} label of its metric. */
    public String label() {
        return label;
    }

    public Kind kind() {
        return kind;
    }
}
