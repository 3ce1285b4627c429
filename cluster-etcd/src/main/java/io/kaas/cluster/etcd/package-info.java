/**
 * The etcd v3 coordination backend (etcd://), found by ServiceLoader; the only code that loads jetcd and gRPC.
 */
package io.kaas.cluster.etcd;
