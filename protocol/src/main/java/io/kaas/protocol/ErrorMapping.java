package io.kaas.protocol;

import io.kaas.storage.io.StorageException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Storage-engine failures as Kafka error codes. Chosen so that a client does what an operator would
 * want: retriable codes (KAFKA_STORAGE_ERROR, NOT_LEADER_OR_FOLLOWER) where a retry may succeed,
 * fatal ones where it cannot.
 */
public final class ErrorMapping {
    private ErrorMapping() {}

    public static Errors toKafka(StorageException.Kind kind) {
        switch (kind) {
            case CORRUPT_BATCH:
                return Errors.CORRUPT_MESSAGE;
            case OUT_OF_ORDER_SEQUENCE:
                return Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
            case PRODUCER_FENCED:
                return Errors.INVALID_PRODUCER_EPOCH;
            case COORDINATOR_FENCED:
                return Errors.TRANSACTION_COORDINATOR_FENCED;
            case FENCED_LEADER_EPOCH:
                return Errors.FENCED_LEADER_EPOCH;
            case OFFSET_OUT_OF_RANGE:
                return Errors.OFFSET_OUT_OF_RANGE;
            case RECORD_TOO_LARGE:
                return Errors.RECORD_LIST_TOO_LARGE;
            case STALLED:
                return Errors.KAFKA_STORAGE_ERROR;
            case IO:
                return Errors.KAFKA_STORAGE_ERROR;
            // A partition closing under us (topic deleted, broker stopping): the client should refresh
            // metadata and retry elsewhere, as after a leader change.
            case CLOSED:
                return Errors.NOT_LEADER_OR_FOLLOWER;
            case NOT_OWNED:
                return Errors.NOT_LEADER_OR_FOLLOWER;
            case UNKNOWN_TOPIC_OR_PARTITION:
                return Errors.UNKNOWN_TOPIC_OR_PARTITION;
            case TOPIC_EXISTS:
                return Errors.TOPIC_ALREADY_EXISTS;
            case LOCKED:
                return Errors.KAFKA_STORAGE_ERROR;
            case DAMAGED:
                return Errors.KAFKA_STORAGE_ERROR;
            case INVALID_TIMESTAMP:
                return Errors.INVALID_TIMESTAMP;
            default:
                return Errors.UNKNOWN_SERVER_ERROR;
        }
    }

    /** Any failure (unwrapping futures' wrappers) as a Kafka error code. */
    public static Errors toKafka(Throwable t) {
        Throwable cause = unwrap(t);
        if (cause instanceof StorageException se) {
            return toKafka(se.kind());
        }
        return Errors.forException(cause);
    }

    public static Throwable unwrap(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
