package io.kaas.cluster.kubernetes;

import io.fabric8.kubernetes.client.Config;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.StoreAddress;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * {@code k8s://[NAMESPACE][?context=NAME]} (or {@code kubernetes://...}): the Kubernetes API server found
 * the way {@code kubectl} and every client library find it — inside a pod, the service account's token and
 * the {@code KUBERNETES_SERVICE_HOST} the kubelet sets; outside, the kubeconfig ({@code $KUBECONFIG} or
 * {@code ~/.kube/config}) and its current context, or {@code context}. No namespace: the pod's own (in a
 * cluster) or the context's.
 *
 * @param namespace where the Leases and the ConfigMap live; null for the configured one
 * @param context   the kubeconfig context to use; null for the current one
 */
public record KubernetesAddress(String namespace, String context) implements StoreAddress {
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    /** @throws IllegalArgumentException naming what is wrong */
    public static KubernetesAddress parse(String spec) {
        String rest = spec.substring(spec.indexOf("://") + 3);
        String query = null;
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        String namespace = rest.isEmpty() ? null : rest;
        if (namespace != null && !DNS_LABEL.matcher(namespace).matches()) {
            throw new IllegalArgumentException("--coordinator: '" + namespace + "' is not a Kubernetes namespace "
                    + "(lower-case letters, digits and '-', at most 63) in " + spec);
        }
        String context = null;
        if (query != null && !query.isEmpty()) {
            for (String param : query.split("&")) {
                if (param.startsWith("context=") && param.length() > "context=".length()) {
                    context = param.substring("context=".length());
                } else {
                    throw new IllegalArgumentException("--coordinator: unknown parameter '" + param + "' in " + spec
                            + " (k8s:// takes context=NAME)");
                }
            }
        }
        return new KubernetesAddress(namespace, context);
    }

    @Override
    public ClusterStore connect(String clusterId, Duration timeout) {
        Config config;
        try {
            config = Config.autoConfigure(context);
        } catch (RuntimeException e) {
            throw new CoordinationException(
                    "cannot read the Kubernetes client configuration (kubeconfig or service account): "
                            + e.getMessage(),
                    e);
        }
        String ns = namespace != null ? namespace : config.getNamespace() != null ? config.getNamespace() : "default";
        return KubernetesClusterStore.connect(config, ns, clusterId, timeout);
    }

    @Override
    public String toString() {
        return "k8s://" + (namespace == null ? "" : namespace) + (context == null ? "" : "?context=" + context);
    }
}
