package io.kaas.broker.txn;

/** A topic partition taking part in a transaction. */
public record TxnPartition(String topic, int partition) implements Comparable<TxnPartition> {
    @Override
    public int compareTo(TxnPartition o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }
}
