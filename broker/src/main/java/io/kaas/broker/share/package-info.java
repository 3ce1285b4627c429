/**
 * Share groups (KIP-932, "queues for Kafka"): members that consume the same partitions together, each
 * record delivered to one member at a time under an acquisition lock and acknowledged one by one. The
 * state of each share partition ({@link io.kaas.broker.share.SharePartition}: start and end offsets,
 * in-flight records with delivery counts), the groups and their members, the ShareFetch sessions, and
 * the durable share state in the data directory.
 */
package io.kaas.broker.share;
