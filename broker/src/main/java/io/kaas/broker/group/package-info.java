/**
 * Consumer groups: the classic protocol (JoinGroup/SyncGroup/Heartbeat, KIP-345 static members) and the
 * consumer protocol (KIP-848, server-side assignors), committed offsets in the engine's __consumer_offsets
 * partitions, and the coordinator that owns a group's slot.
 */
package io.kaas.broker.group;
