package io.kaas.storage;

/** What an append waits for before its future completes. */
public enum Acks {
    /** acks=0: the client wants no answer; the append is written, never waited on. */
    NONE,
    /** acks=1: written to the log (page cache), not waited for fsync. */
    LEADER,
    /** acks=-1/all: written and fsynced (when this append crossed the flush interval; always at interval 1). */
    ALL;

    /** Kafka's wire value: 0, 1 or -1. */
    public static Acks fromKafka(short acks) {
        switch (acks) {
            case 0:
                return NONE;
            case 1:
                return LEADER;
            case -1:
                return ALL;
            default:
                throw new IllegalArgumentException("acks must be 0, 1 or -1, got " + acks);
        }
    }
}
