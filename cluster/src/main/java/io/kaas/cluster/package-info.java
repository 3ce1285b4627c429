/**
 * Several brokers over one shared data directory: the ClusterStore seam (what they agree on, kept in an
 * external store found by URI scheme through ClusterStoreProvider), this broker's membership and lease
 * (ClusterMember, LeaseKeeper: a broker whose lease may have expired acknowledges nothing), the assignment of
 * partitions and coordinator slots, and operators' pins. Knows no backend and nothing of the wire.
 */
package io.kaas.cluster;
