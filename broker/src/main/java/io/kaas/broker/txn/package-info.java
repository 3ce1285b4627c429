/**
 * Transactions (KIP-98, KIP-890 protocol v2): the transaction coordinator's state machine per transactional id,
 * kept in __transaction_state, the markers it writes to data partitions, and the gates that check a
 * transactional Produce or offset commit against it.
 */
package io.kaas.broker.txn;
