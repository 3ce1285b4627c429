package io.kaas.storage.io;

/**
 * Every error the engine reports. {@link #kind()} is what a caller branches on (the broker maps it to
 * a Kafka error code); the message names the file and what is wrong.
 */
public class StorageException extends RuntimeException {
    public enum Kind {
        /** Framing, magic, CRC or record-count check failed; nothing was written. */
        CORRUPT_BATCH,
        /** Idempotence: sequence gap for a known producer. */
        OUT_OF_ORDER_SEQUENCE,
        /** Idempotence: producer epoch older than the one the partition knows. */
        PRODUCER_FENCED,
        /**
         * Transactions: a marker from a coordinator epoch older than that of a marker already written for the producer
         * (a coordinator that lost its slot); nothing was written.
         */
        COORDINATOR_FENCED,
        /** The caller's leader epoch is older than the partition's. */
        FENCED_LEADER_EPOCH,
        /** Offset below log start or above the high watermark. */
        OFFSET_OUT_OF_RANGE,
        /** A batch larger than the segment can hold. */
        RECORD_TOO_LARGE,
        /** An fsync failed or took longer than the watchdog allows; sticky until the partition is reopened. */
        STALLED,
        /** Any other I/O failure; the partition may be sticky-failed. */
        IO,
        /** The partition or engine is closed. */
        CLOSED,
        /** Unknown topic or partition. */
        UNKNOWN_TOPIC_OR_PARTITION,
        /** Topic already exists. */
        TOPIC_EXISTS,
        /** Another process holds the partition's lock. */
        LOCKED,
        /** Damage found that needs an operator's decision (bad batch followed by valid data). */
        DAMAGED,
        /**
         * Several brokers over one shared directory: this engine has not taken the partition over (another
         * broker owns it, or it was released); nothing of it was read or written.
         */
        NOT_OWNED,
        /** A CreateTime batch's timestamp is outside the topic's message.timestamp.before/after.max.ms (KIP-937). */
        INVALID_TIMESTAMP
    }

    private final Kind kind;

    public StorageException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public StorageException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
