package io.kaas.broker;

import io.kaas.broker.cluster.InterBrokerClient;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.Endpoint;
import io.kaas.protocol.KafkaServer;
import io.kaas.protocol.ListenerSecurity;
import io.kaas.protocol.RequestContext;
import io.kaas.protocol.RequestInvoker;
import io.kaas.protocol.ServedApis;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The broker's Kafka listeners: the {@link KafkaServer} (its {@code kaas-acceptor} and {@code kaas-network-*} event
 * loops), each listener bound with its TLS and SASL, what each advertises, and the TLS stores' reload checks. Its
 * stop, registered with the broker's {@link StartedResources} before the first bind, stops accepting, stops reading,
 * answers the requests in flight and closes the connections, the event loops and the listeners' TLS and SASL.
 * Thread-safe once bound.
 */
final class KafkaListeners {
    private static final long DRAIN_TIMEOUT_MS = 10_000;

    private final KafkaServer server;
    private final List<ListenerSecurity> securities = new CopyOnWriteArrayList<>();
    private final AdvertisedListeners advertised;
    private final Map<String, BrokerNode> nodesByListener;

    private KafkaListeners(KafkaServer server, AdvertisedListeners advertised, List<ListenerSecurity> securities) {
        this.server = server;
        this.advertised = advertised;
        this.nodesByListener = advertised.nodesByListener();
        this.securities.addAll(securities);
    }

    /**
     * Binds every listener of {@code config}, serving {@code served} through {@code invoker}. {@code beforeDrain}
     * runs at the stop once no connection is read any more, before the requests in flight are waited for.
     */
    static KafkaListeners bind(
            BrokerConfig config,
            SecurityConfig security,
            ServedApis served,
            RequestInvoker invoker,
            Runnable beforeDrain,
            StartedResources started) {
        KafkaServer server = new KafkaServer(config.networkThreads(), config.socketBuffers());
        List<ListenerSecurity> securities = new CopyOnWriteArrayList<>();
        started.add("the Kafka listeners", () -> {
            try {
                server.stopAccepting();
                beforeDrain.run();
                server.drainAndClose(DRAIN_TIMEOUT_MS);
            } finally {
                securities.forEach(ListenerSecurity::close);
            }
        });
        security.validate(config.listeners());
        server.limitConnections(security.connectionLimits());
        List<InetSocketAddress> bound = new ArrayList<>();
        try {
            for (Endpoint listener : config.listeners()) {
                ListenerSecurity ls = security.listenerSecurity(listener.listenerName());
                securities.add(ls);
                bound.add(server.bind(
                        listener.listenerName(),
                        listener.host(),
                        listener.port(),
                        ls,
                        served,
                        invoker,
                        config.socketRequestMaxBytes()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding listeners", e);
        }
        AdvertisedListeners advertised = new AdvertisedListeners(
                config.brokerId(), config.clusterId(), config.listeners(), config.advertisedListeners(), bound);
        return new KafkaListeners(server, advertised, securities);
    }

    KafkaServer server() {
        return server;
    }

    AdvertisedListeners advertised() {
        return advertised;
    }

    /** The broker as the client's listener advertises it (a client on the SSL port is told the SSL address). */
    BrokerNode nodeFor(RequestContext ctx) {
        BrokerNode n = ctx.session() == null
                ? null
                : nodesByListener.get(ctx.session().listener().listenerName());
        return n != null ? n : advertised.node();
    }

    /**
     * Certificate rotation without a restart: TLS listeners re-read changed stores every {@code every} (on
     * {@code timer}). The inter-broker listener's stores are this broker's client side to the others too: when they
     * reload, the inter-broker connections ({@code peers}, null for a broker on its own) are made anew with them from
     * the next request on.
     */
    void reloadTlsEvery(
            java.time.Duration every,
            ScheduledExecutorService timer,
            String interBrokerListener,
            InterBrokerClient peers,
            StartedResources started) {
        long ms = every.toMillis();
        if (ms <= 0 || securities.stream().noneMatch(ListenerSecurity::tls)) {
            return;
        }
        ScheduledFuture<?> checks = timer.scheduleWithFixedDelay(
                () -> {
                    for (ListenerSecurity ls : securities) {
                        if (ls.reloadIfChanged()
                                && peers != null
                                && ls.listenerName().equals(interBrokerListener)) {
                            peers.renewConnections();
                        }
                    }
                },
                ms,
                ms,
                TimeUnit.MILLISECONDS);
        started.add("the TLS reload checks", () -> checks.cancel(false));
    }
}
