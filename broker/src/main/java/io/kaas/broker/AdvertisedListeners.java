package io.kaas.broker;

import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.Endpoint;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What this broker tells others it is reached at, once its listeners are bound: per listener, Apache's rule (the
 * advertised listener of the same name, else the first advertised one, else the bound address with its real port,
 * 0.0.0.0 read as localhost). Metadata and FindCoordinator answer a client with the node of the listener it came in
 * on; the registration other brokers read lists every advertised listener. Immutable.
 *
 * @param listeners the configured listeners, in order
 * @param advertisedListeners {@code advertised.listeners} (may be empty)
 * @param bound where each of {@code listeners} is bound, in the same order
 */
record AdvertisedListeners(
        int brokerId,
        String clusterId,
        List<Endpoint> listeners,
        List<Endpoint> advertisedListeners,
        List<InetSocketAddress> bound) {

    AdvertisedListeners {
        listeners = List.copyOf(listeners);
        advertisedListeners = List.copyOf(advertisedListeners);
        bound = List.copyOf(bound);
        if (bound.size() != listeners.size()) {
            throw new IllegalArgumentException(listeners.size() + " listeners but " + bound.size() + " bound");
        }
    }

    /** The first advertised listener, or the first bound one. */
    Endpoint first() {
        return advertisedListeners.isEmpty() ? boundAt(0) : advertisedListeners.get(0);
    }

    /** The broker as {@link #first()} names it: what a client not on a named listener is told. */
    BrokerNode node() {
        Endpoint a = first();
        return new BrokerNode(brokerId, a.host(), a.port(), clusterId);
    }

    /** Per listener name, the broker as a client connected there is told it (the first listener of a name wins). */
    Map<String, BrokerNode> nodesByListener() {
        Map<String, BrokerNode> out = new HashMap<>();
        for (int i = 0; i < listeners.size(); i++) {
            Endpoint a = advertised(i);
            out.putIfAbsent(listeners.get(i).listenerName(), new BrokerNode(brokerId, a.host(), a.port(), clusterId));
        }
        return Map.copyOf(out);
    }

    /**
     * What this broker registers for the others to reach it by: Apache's effective advertised listeners
     * ({@code advertised.listeners}, else the bound listeners with their real ports).
     */
    List<String> registered() {
        if (!advertisedListeners.isEmpty()) {
            return advertisedListeners.stream().map(Endpoint::toString).toList();
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < listeners.size(); i++) {
            out.add(boundAt(i).toString());
        }
        return out;
    }

    /** The port listener {@code listenerName} is bound to. */
    int boundPort(String listenerName) {
        for (int i = 0; i < listeners.size(); i++) {
            if (listeners.get(i).listenerName().equals(listenerName)) {
                return bound.get(i).getPort();
            }
        }
        throw new IllegalArgumentException("no bound listener named " + listenerName);
    }

    /**
     * What listener {@code i} advertises: the advertised listener of the same name, else (with advertised
     * listeners of other names only) the first advertised one, else the bound address.
     */
    private Endpoint advertised(int i) {
        Endpoint listener = listeners.get(i);
        for (Endpoint a : advertisedListeners) {
            if (a.listenerName().equals(listener.listenerName())) {
                return a;
            }
        }
        return advertisedListeners.isEmpty() ? boundAt(i) : advertisedListeners.get(0);
    }

    /** Listener {@code i} at its real port, 0.0.0.0 (or no host) as localhost. */
    private Endpoint boundAt(int i) {
        Endpoint l = listeners.get(i);
        String host = l.host().isEmpty() || l.host().equals("0.0.0.0") ? "localhost" : l.host();
        return new Endpoint(l.listenerName(), host, bound.get(i).getPort());
    }
}
