package io.kaas.broker.txn;

/**
 * An offset a TxnOffsetCommit staged: stored with its transaction, committed into the group's
 * offsets when the transaction commits, dropped when it aborts.
 */
public record StagedOffset(String groupId, String topic, int partition, long offset, int leaderEpoch, String metadata,
                           long commitTimestamp) {}
