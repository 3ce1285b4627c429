/**
 * The broker's view of its cluster over the cluster module: topics (TopicCatalog), producer ids unique across
 * restarts, and requests to other brokers (transaction markers, AddPartitionsToTxn) at the listener their
 * registration names.
 */
package io.kaas.broker.cluster;
