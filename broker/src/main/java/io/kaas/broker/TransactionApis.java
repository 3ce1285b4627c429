package io.kaas.broker;

import io.kaas.broker.api.AddOffsetsToTxnHandler;
import io.kaas.broker.api.AddPartitionsToTxnHandler;
import io.kaas.broker.api.DescribeTransactionsHandler;
import io.kaas.broker.api.EndTxnHandler;
import io.kaas.broker.api.InitProducerIdHandler;
import io.kaas.broker.api.ListTransactionsHandler;
import io.kaas.broker.api.TxnOffsetCommitHandler;
import io.kaas.broker.api.WriteTxnMarkersHandler;
import io.kaas.broker.txn.TransactionalOffsetsGate;
import io.kaas.protocol.RequestInvoker;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The transaction APIs (KIP-98, KIP-890): producer ids, partitions and offsets joining a transaction, its end, the
 * markers, and listing and describing transactions.
 */
final class TransactionApis {
    private TransactionApis() {}

    /** Registers them on {@code invoker}. */
    static void register(RequestInvoker invoker, ApiHandlers.Parts p) {
        invoker.register(
                ApiKeys.INIT_PRODUCER_ID,
                ApiKeys.INIT_PRODUCER_ID.latestVersion(),
                new InitProducerIdHandler(p.producerIds(), p.transactions()));
        invoker.register(
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                AddPartitionsToTxnHandler.MAX_VERSION,
                new AddPartitionsToTxnHandler(p.transactions(), p.topics()));
        invoker.register(
                ApiKeys.ADD_OFFSETS_TO_TXN,
                ApiKeys.ADD_OFFSETS_TO_TXN.latestVersion(),
                new AddOffsetsToTxnHandler(p.transactions()));
        invoker.register(ApiKeys.END_TXN, EndTxnHandler.MAX_VERSION, new EndTxnHandler(p.transactions()));
        invoker.register(
                ApiKeys.TXN_OFFSET_COMMIT,
                TxnOffsetCommitHandler.MAX_VERSION,
                new TxnOffsetCommitHandler(
                        p.groups(), new TransactionalOffsetsGate(p.transactions(), p.transactionPeers()), p.topics()));
        invoker.register(
                ApiKeys.WRITE_TXN_MARKERS,
                ApiKeys.WRITE_TXN_MARKERS.latestVersion(),
                new WriteTxnMarkersHandler(
                        p.topics(), p.transactions().markerWriter(), p.groups(), p.mayAcknowledge()));
        invoker.register(
                ApiKeys.LIST_TRANSACTIONS,
                ApiKeys.LIST_TRANSACTIONS.latestVersion(),
                new ListTransactionsHandler(p.transactions()));
        invoker.register(
                ApiKeys.DESCRIBE_TRANSACTIONS,
                ApiKeys.DESCRIBE_TRANSACTIONS.latestVersion(),
                new DescribeTransactionsHandler(p.transactions()));
    }
}
