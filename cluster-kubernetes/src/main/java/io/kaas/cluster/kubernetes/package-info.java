/**
 * The Kubernetes coordination backend (k8s://): Leases for membership and one ConfigMap for the shared state,
 * found by ServiceLoader; the only code that loads fabric8. Lease expiry is judged by observation, never by
 * another node's wall clock.
 */
package io.kaas.cluster.kubernetes;
