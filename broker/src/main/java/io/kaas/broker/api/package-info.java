/**
 * One handler per Kafka API (ProduceHandler, FetchHandler, ...), each an ApiHandler of the protocol module, run
 * on a request-handler thread. Handlers translate between Kafka's messages and the engine and coordinators;
 * they hold no state of their own beyond what a request needs.
 */
package io.kaas.broker.api;
