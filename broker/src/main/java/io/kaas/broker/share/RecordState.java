package io.kaas.broker.share;

/** The state of one in-flight record of a share partition, as Apache's {@code RecordState}. */
public enum RecordState {
    /** May be acquired by the next fetch (never delivered, released, or its lock expired). */
    AVAILABLE,
    /** Delivered to one member, under an acquisition lock. */
    ACQUIRED,
    /** Accepted: never delivered again. */
    ACKNOWLEDGED,
    /** Rejected, past the delivery-count limit, or not a deliverable record (aborted, a marker, a gap). */
    ARCHIVED
}
