package io.kaas.broker.txn;

/**
 * An offset a TxnOffsetCommit staged in the transaction's own record, as kaas did before pending offsets moved to
 * the group's coordinator: still read from slot files an earlier kaas wrote, and committed into the group's offsets
 * if that transaction commits. Nothing stages new ones.
 */
public record StagedOffset(
        String groupId,
        String topic,
        int partition,
        long offset,
        int leaderEpoch,
        String metadata,
        long commitTimestamp) {}
