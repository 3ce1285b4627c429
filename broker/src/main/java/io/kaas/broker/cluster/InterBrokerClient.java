package io.kaas.broker.cluster;

import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.Endpoint;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ChannelBuilders;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * Requests from this broker to another broker of the cluster, as Apache's inter-broker channels send them: the
 * transaction coordinator's WriteTxnMarkers to a partition's leader, a partition leader's AddPartitionsToTxn to the
 * transaction coordinator. Sent to the other broker's inter-broker listener (Apache's {@code inter.broker.listener.name},
 * found in its registration by {@link PeerAddresses}) over kafka-clients' own client stack, as Apache's brokers do:
 * a {@link NetworkClient} over a {@link Selector} whose {@link ChannelBuilder} does that listener's TLS and SASL
 * ({@code io.kaas.broker.security.InterBrokerListener}); versions are agreed by an ApiVersions exchange, requests
 * encoded by kafka-clients' message classes.
 *
 * <p>Blocking: the calling thread waits for the answer (callers run it on their own executors, never on a Netty
 * loop). One connection per broker, one request at a time on it; a connection that fails is closed and opened
 * again at the next request. Thread-safe.
 *
 * <p>Certificate rotation ({@link #renewConnections}): after the inter-broker listener's keystore or truststore
 * changed, each peer is replaced at its next use by one over a new channel builder, which reads the stores afresh.
 * The old peer is closed once the request in flight on it (if any) is answered, so no request fails for a rotation.
 * Why not kafka-clients' own {@code Reconfigurable} channel builders (what Apache reconfigures on a keystore update):
 * their {@code SslFactory} refuses a certificate whose DN or SANs changed (unless {@code ssl.allow.dn.changes}),
 * while kaas's listeners take any store that loads, and the broker's client half must present what its server
 * half does; and a reconfigured builder changes only connections made later, while an inter-broker connection in
 * steady use is rarely remade, so the old certificate would stay in use for as long as that connection lives.
 */
public final class InterBrokerClient implements AutoCloseable {
    /** Where to reach another broker's inter-broker listener. */
    @FunctionalInterface
    public interface PeerAddresses {
        /** @throws IOException when {@code to} has no such listener (or is not live) */
        Endpoint of(BrokerNode to) throws IOException;
    }

    private static final long RECONNECT_BACKOFF_MS = 50;
    /** Apache's connections.max.idle.ms default: an idle inter-broker connection is closed after 10 minutes. */
    private static final long CONNECTIONS_MAX_IDLE_MS = 600_000;

    private final String clientId;
    private final int timeoutMs;
    private final Supplier<ChannelBuilder> channels;
    private final PeerAddresses addresses;
    private final Map<Integer, Peer> peers = new ConcurrentHashMap<>();
    /** Bumped by {@link #renewConnections}: a peer made under an older generation is replaced at its next use. */
    private final AtomicInteger generation = new AtomicInteger();

    private volatile boolean closed;

    /** PLAINTEXT to the address a {@link BrokerNode} names: brokers whose only listener is PLAINTEXT (tests). */
    public InterBrokerClient(int selfId, Duration timeout) {
        this(
                selfId,
                timeout,
                () -> ChannelBuilders.clientChannelBuilder(
                        SecurityProtocol.PLAINTEXT,
                        null,
                        new AbstractConfig(new ConfigDef(), Map.of(), false),
                        null,
                        null,
                        Time.SYSTEM,
                        new LogContext()),
                to -> new Endpoint("PLAINTEXT", to.host(), to.port()));
    }

    /**
     * @param channels  a new channel builder for each connection's selector (which closes it): TLS and SASL as the
     *                  inter-broker listener asks
     * @param addresses the other broker's inter-broker listener
     */
    public InterBrokerClient(int selfId, Duration timeout, Supplier<ChannelBuilder> channels, PeerAddresses addresses) {
        this.clientId = "kaas-broker-" + selfId;
        this.timeoutMs = (int) timeout.toMillis();
        this.channels = channels;
        this.addresses = addresses;
    }

    /** Sends {@code body} as {@code api} (at the latest version both brokers speak) to {@code to}; its answer. */
    public ApiMessage send(BrokerNode to, ApiKeys api, ApiMessage body) throws IOException {
        if (closed) {
            throw new IOException("inter-broker client closed");
        }
        Endpoint at = addresses.of(to);
        while (true) {
            Optional<ApiMessage> answer = peerAt(to.nodeId(), at).roundTrip(api, body);
            if (answer.isPresent()) {
                return answer.get();
            }
            // That peer was replaced while this thread waited for it: its successor takes the request.
        }
    }

    /**
     * New connections, from the next request on, use a new channel builder: call it when the inter-broker listener's
     * keystore or truststore changed. Returns at once; requests in flight finish on their connection.
     */
    public void renewConnections() {
        generation.incrementAndGet();
    }

    /** The peer for broker {@code id} at {@code at}, made anew when it moved or is of an older generation. */
    private Peer peerAt(int id, Endpoint at) throws IOException {
        int current = generation.get();
        Peer[] replaced = new Peer[1];
        Peer p;
        try {
            p = peers.compute(id, (k, old) -> {
                if (old != null && old.isAt(at) && old.madeIn >= current) {
                    return old;
                }
                replaced[0] = old;
                return new Peer(id, at.host(), at.port(), current);
            });
        } catch (KafkaException e) {
            // A store changed again since the reload and does not load now: this request fails, the next one tries
            // again.
            throw new IOException("broker " + id + " at " + at.host() + ":" + at.port() + ": " + e.getMessage(), e);
        }
        Peer old = replaced[0];
        if (old != null && old.isAt(at)) {
            old.retire();
        } else if (old != null) {
            old.close(); // the broker moved to another address: a request to the old one is not worth waiting for
        }
        if (closed) {
            p.close();
            throw new IOException("inter-broker client closed");
        }
        return p;
    }

    @Override
    public void close() {
        closed = true;
        peers.values().forEach(Peer::close);
        peers.clear();
    }

    /**
     * One other broker: a NetworkClient of its own (kafka-clients' are single-threaded), used under {@link #lock}.
     * Once {@link #retired} it takes no new request, and whoever holds or next takes the lock closes it.
     */
    private final class Peer {
        private final int id;
        private final String host;
        private final int port;
        private final int madeIn;
        private final Node node;
        private final Metrics metrics;
        private final NetworkClient client;
        private final ReentrantLock lock = new ReentrantLock();
        private final Time time = Time.SYSTEM;
        private volatile boolean retired;
        private final AtomicBoolean released = new AtomicBoolean();

        Peer(int id, String host, int port, int madeIn) {
            this.id = id;
            this.host = host;
            this.port = port;
            this.madeIn = madeIn;
            this.node = new Node(id, host, port);
            ChannelBuilder channelBuilder = channels.get(); // first: a store that does not load leaves nothing open
            this.metrics = new Metrics();
            LogContext log = new LogContext("[" + clientId + " to broker " + id + "] ");
            Selector selector =
                    new Selector(CONNECTIONS_MAX_IDLE_MS, metrics, time, "kaas-inter-broker", channelBuilder, log);
            this.client = new NetworkClient(
                    selector,
                    new ManualMetadataUpdater(),
                    clientId,
                    1,
                    RECONNECT_BACKOFF_MS,
                    RECONNECT_BACKOFF_MS,
                    Selector.USE_DEFAULT_BUFFER_SIZE,
                    Selector.USE_DEFAULT_BUFFER_SIZE,
                    timeoutMs,
                    timeoutMs,
                    timeoutMs,
                    time,
                    true,
                    new ApiVersions(),
                    log,
                    MetadataRecoveryStrategy.NONE,
                    BootstrapConfiguration.DISABLED,
                    false);
        }

        boolean isAt(Endpoint at) {
            return host.equals(at.host()) && port == at.port();
        }

        /** The answer, or empty when this peer was retired before the request could start (then it is closed). */
        Optional<ApiMessage> roundTrip(ApiKeys api, ApiMessage body) throws IOException {
            lock.lock();
            try {
                if (closed) {
                    throw new IOException("inter-broker client closed");
                }
                if (retired) {
                    return Optional.empty();
                }
                if (!NetworkClientUtils.awaitReady(client, node, time, timeoutMs)) {
                    throw new IOException(this + ": not connected within " + timeoutMs + " ms");
                }
                ClientRequest request = client.newClientRequest(
                        node.idString(), new MessageBuilder(api, body), time.milliseconds(), true, timeoutMs, null);
                ClientResponse response = NetworkClientUtils.sendAndReceive(client, request, time);
                if (response.versionMismatch() != null) {
                    throw new IOException(
                            this + ": " + response.versionMismatch().getMessage(), response.versionMismatch());
                }
                if (response.authenticationException() != null) {
                    throw response.authenticationException();
                }
                return Optional.of(response.responseBody().data());
            } catch (IOException | KafkaException e) {
                // An authentication or TLS failure, a timeout, a disconnect: start afresh next time.
                client.close(node.idString());
                throw e instanceof IOException io ? io : new IOException(this + ": " + e.getMessage(), e);
            } finally {
                lock.unlock();
                // Checked after unlocking: a retire() that found the lock taken relies on its holder seeing the flag
                // here.
                if (retired) {
                    closeIfIdle();
                }
            }
        }

        /** Takes no new request; closed now when idle, else by the thread whose request is in flight once answered. */
        void retire() {
            retired = true;
            closeIfIdle();
        }

        private void closeIfIdle() {
            if (lock.tryLock()) {
                try {
                    release();
                } finally {
                    lock.unlock();
                }
            }
        }

        /** Wakes a request in flight (it fails at once), then closes once it has let go. */
        void close() {
            retired = true;
            client.initiateClose();
            boolean locked = false;
            try {
                locked = lock.tryLock(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                release();
            } finally {
                if (locked) {
                    lock.unlock();
                }
            }
        }

        /** Closes the connection and its channel builder, once. */
        private void release() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            try {
                client.close();
            } catch (RuntimeException e) {
                // closing a broken connection
            } finally {
                metrics.close();
            }
        }

        @Override
        public String toString() {
            return "broker " + id + " at " + host + ":" + port;
        }
    }

    /** A request whose body is already a kafka-clients message (what the callers build), at the negotiated version. */
    private static final class MessageBuilder extends AbstractRequest.Builder<AbstractRequest> {
        private final ApiMessage body;

        MessageBuilder(ApiKeys api, ApiMessage body) {
            super(api, api.oldestVersion(), api.latestVersion());
            this.body = body;
        }

        @Override
        public AbstractRequest build(short version) {
            ApiMessage data = body;
            return new AbstractRequest(apiKey(), version) {
                @Override
                public ApiMessage data() {
                    return data;
                }

                @Override
                public AbstractResponse getErrorResponse(int throttleTimeMs, Throwable e) {
                    throw new UnsupportedOperationException("an inter-broker request is never answered here");
                }
            };
        }
    }
}
