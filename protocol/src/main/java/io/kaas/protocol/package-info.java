/**
 * Kafka's wire protocol as kaas serves it, knowing nothing of what a request means: the Netty server
 * (KafkaServer: one kaas-acceptor thread, a few kaas-network event loops), framing (FrameDecoder, bounded by
 * socket.request.max.bytes), decoding into kafka-clients' generated messages (RequestDecoder), the table of
 * served APIs and versions (ServedApis, also ApiVersions' answer), dispatch to an ApiHandler on the
 * request-handler pool in request order per connection (RequestDispatcher, RequestInvoker), and the
 * per-connection security state (ClientSession, TLS, the SASL gate). Handlers live in the broker module; a
 * malformed frame closes only its own connection.
 */
package io.kaas.protocol;
