/**
 * Streams groups (KIP-1071, {@code group.protocol=streams}): StreamsGroupHeartbeat and StreamsGroupDescribe over
 * Apache's own streams-group model, topology configuration and task assignor (kafka-group-coordinator), held in
 * memory as the KIP-848 consumer groups of the parent package are.
 */
package io.kaas.broker.group.streams;
