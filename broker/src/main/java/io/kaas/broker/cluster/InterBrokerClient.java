package io.kaas.broker.cluster;

import io.kaas.broker.net.RequestFrame;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * Requests from this broker to another broker of the cluster, as Apache's inter-broker channels send them: the
 * transaction coordinator's WriteTxnMarkers to a partition's leader, a partition leader's AddPartitionsToTxn to the
 * transaction coordinator. Sent to the address the other broker registered (its first advertised listener, which
 * must then be PLAINTEXT), encoded by kafka-clients' message classes; both ends are kaas of one build, so the
 * latest version of each API is spoken without an ApiVersions exchange.
 *
 * <p>Blocking: the calling thread waits for the answer (callers run it on their own executors, never on a Netty
 * loop). One connection per broker, one request at a time on it; a connection that fails is closed and opened
 * again at the next request. Thread-safe.
 */
public final class InterBrokerClient implements AutoCloseable {
    private final String clientId;
    private final int timeoutMs;
    private final Map<Integer, Connection> connections = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public InterBrokerClient(int selfId, Duration timeout) {
        this.clientId = "kaas-broker-" + selfId;
        this.timeoutMs = (int) timeout.toMillis();
    }

    /** Sends {@code body} as {@code api} at its latest version to {@code to}; its answer. */
    public ApiMessage send(BrokerNode to, ApiKeys api, ApiMessage body) throws IOException {
        if (closed) {
            throw new IOException("inter-broker client closed");
        }
        Connection c = connections.compute(to.nodeId(), (id, old) -> {
            if (old != null && old.host.equals(to.host()) && old.port == to.port()) {
                return old;
            }
            if (old != null) {
                old.close();
            }
            return new Connection(to.host(), to.port());
        });
        return c.roundTrip(api, api.latestVersion(), body);
    }

    @Override
    public void close() {
        closed = true;
        connections.values().forEach(Connection::close);
        connections.clear();
    }

    private final class Connection {
        private final String host;
        private final int port;
        private volatile Socket socket;
        private int correlation;

        Connection(String host, int port) {
            this.host = host;
            this.port = port;
        }

        synchronized ApiMessage roundTrip(ApiKeys api, short version, ApiMessage body) throws IOException {
            try {
                if (socket == null) {
                    Socket s = new Socket();
                    s.setTcpNoDelay(true);
                    s.setSoTimeout(timeoutMs);
                    s.connect(new InetSocketAddress(host, port), timeoutMs);
                    socket = s;
                }
                int id = ++correlation;
                write(socket.getOutputStream(), api, version, id, body);
                DataInputStream in = new DataInputStream(socket.getInputStream());
                int size = in.readInt();
                if (size < 0) {
                    throw new IOException(host + ":" + port + ": invalid response size " + size);
                }
                byte[] frame = new byte[size];
                in.readFully(frame);
                ByteBuffer buf = ByteBuffer.wrap(frame);
                ByteBufferAccessor reader = new ByteBufferAccessor(buf);
                ResponseHeaderData header = new ResponseHeaderData(reader, api.responseHeaderVersion(version));
                if (header.correlationId() != id) {
                    throw new IOException(host + ":" + port + ": response to request " + header.correlationId() + ", expected " + id);
                }
                ApiMessage response = api.messageType.newResponse();
                response.read(reader, version);
                return response;
            } catch (IOException | RuntimeException e) {
                close();
                throw e instanceof IOException io ? io : new IOException(host + ":" + port + ": " + e.getMessage(), e);
            }
        }

        private void write(OutputStream out, ApiKeys api, short version, int id, ApiMessage body) throws IOException {
            ByteBuffer frame = RequestFrame.encode(api, version, id, clientId, body);
            out.write(frame.array(), 0, frame.limit());
            out.flush();
        }

        /** Not under the monitor: {@link InterBrokerClient#close} must not wait for a request in flight. */
        void close() {
            Socket s = socket;
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a broken connection
                }
                socket = null;
            }
        }
    }
}
