package io.kaas.cluster.kubernetes;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapList;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.kaas.cluster.CoordinationException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One cluster's objects on the Kubernetes API: the client in its namespace, the names and labels of the cluster's
 * Leases and ConfigMap (all starting with one prefix, {@link KubernetesClusterStore#namePrefix}), and each API call
 * made with its failure turned into a {@link CoordinationException} that names what was attempted and why it failed
 * (the HTTP code kept, for the callers that tell a conflict, 409, from an absence, 404). Thread-safe (fabric8's
 * client is).
 */
final class KubernetesCalls {
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String CLUSTER_LABEL = "kaas.io/cluster";
    static final String ROLE_LABEL = "kaas.io/role";
    static final String LEASE_ANNOTATION = "kaas.io/lease";

    private final KubernetesClient client;
    private final String namespace;
    private final String prefix;

    KubernetesCalls(KubernetesClient client, String namespace, String prefix) {
        this.client = client;
        this.namespace = namespace;
        this.prefix = prefix;
    }

    KubernetesClient client() {
        return client;
    }

    String namespace() {
        return namespace;
    }

    /** What every object of this cluster's name starts with, and the value of its cluster label. */
    String prefix() {
        return prefix;
    }

    /** The Leases of the namespace. */
    NonNamespaceOperation<Lease, LeaseList, Resource<Lease>> leases() {
        return client.leases().inNamespace(namespace);
    }

    /** The ConfigMaps of the namespace. */
    NonNamespaceOperation<ConfigMap, ConfigMapList, Resource<ConfigMap>> configMaps() {
        MixedOperation<ConfigMap, ConfigMapList, Resource<ConfigMap>> all = client.configMaps();
        return all.inNamespace(namespace);
    }

    /** The membership Lease of lease {@code id}. */
    String leaseName(long id) {
        return prefix + "-m-" + Long.toHexString(id);
    }

    /** The labels of this cluster's objects of {@code role} ({@code member}, {@code controller}, {@code state}). */
    Map<String, String> labels(String role) {
        return Map.of(MANAGED_BY, "kaas", CLUSTER_LABEL, prefix, ROLE_LABEL, role);
    }

    /** The lease id a holderIdentity or annotation names, or null when it names none (empty: marked expired). */
    static Long parseHex(String s) {
        if (s == null || s.isEmpty() || s.length() > 16) {
            return null;
        }
        try {
            return Long.parseUnsignedLong(s, 16);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A Lease's acquire or renew time: only ever shown to people (observers judge on their own monotonic clocks). */
    static ZonedDateTime now() {
        return ZonedDateTime.now(ZoneOffset.UTC);
    }

    /** The HTTP code of the API call that failed with {@code e}, or -1 when it got no answer. */
    static int code(CoordinationException e) {
        return e.getCause() instanceof KubernetesClientException k ? k.getCode() : -1;
    }

    /** Makes {@code request}; a failure is a {@link CoordinationException}: "cannot {@code what}: HTTP code: why". */
    <T> T call(Supplier<T> request, String what) {
        try {
            return request.get();
        } catch (KubernetesClientException e) {
            String detail = e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage()
                    : e.getMessage();
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            if (root != e) {
                detail += " (" + root
                        + ")"; // fabric8's message names the operation; the cause says why (refused, TLS, timeout)
            }
            throw new CoordinationException(
                    "cannot " + what + ": " + (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " : "") + detail, e);
        }
    }
}
