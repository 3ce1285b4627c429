package io.kaas.broker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;

/**
 * A loopback TCP proxy in front of a broker that records the size of every Fetch request frame passing
 * through it (the bytes the broker decodes: size prefix included), and of every Fetch response frame (the
 * bytes the client must accept: size prefix included). The broker advertises the proxy's port,
 * so clients send everything through it. Thread per direction; {@link #close} stops them all.
 */
final class FetchSizeProxy implements AutoCloseable {
    private static final short FETCH = 1;

    private final ServerSocket server;
    private final IntSupplier brokerPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Integer> fetchSizes = new CopyOnWriteArrayList<>();
    private final List<Integer> fetchResponseSizes = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    FetchSizeProxy(IntSupplier brokerPort) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.brokerPort = brokerPort;
        this.acceptor = new Thread(this::accept, "fetch-size-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Sizes of the Fetch requests seen so far, in order. */
    List<Integer> fetchSizes() {
        return List.copyOf(fetchSizes);
    }

    /** Sizes of the Fetch responses seen so far, in order. */
    List<Integer> fetchResponseSizes() {
        return List.copyOf(fetchResponseSizes);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket broker = new Socket(InetAddress.getLoopbackAddress(), brokerPort.getAsInt());
                sockets.add(client);
                sockets.add(broker);
                Set<Integer> fetchCorrelationIds = ConcurrentHashMap.newKeySet();
                start(() -> framesUp(client.getInputStream(), broker.getOutputStream(), fetchCorrelationIds));
                start(() -> framesDown(broker.getInputStream(), client.getOutputStream(), fetchCorrelationIds));
            } catch (IOException e) {
                return;
            }
        }
    }

    private interface Pump {
        void run() throws IOException;
    }

    private static void start(Pump pump) {
        Thread t = new Thread(
                () -> {
                    try {
                        pump.run();
                    } catch (IOException ignored) {
                        // the other side closed: this direction ends with it
                    }
                },
                "fetch-size-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void framesUp(InputStream from, OutputStream to, Set<Integer> fetchCorrelationIds) throws IOException {
        DataInputStream in = new DataInputStream(from);
        DataOutputStream out = new DataOutputStream(to);
        while (true) {
            int size = in.readInt();
            byte[] frame = new byte[size];
            in.readFully(frame);
            if (size >= 2 && (short) (((frame[0] & 0xff) << 8) | (frame[1] & 0xff)) == FETCH) {
                fetchSizes.add(4 + size);
                if (size >= 8) {
                    fetchCorrelationIds.add(ByteBuffer.wrap(frame, 4, 4).getInt());
                }
            }
            out.writeInt(size);
            out.write(frame);
            out.flush();
        }
    }

    private void framesDown(InputStream from, OutputStream to, Set<Integer> fetchCorrelationIds) throws IOException {
        DataInputStream in = new DataInputStream(from);
        DataOutputStream out = new DataOutputStream(to);
        while (true) {
            int size = in.readInt();
            byte[] frame = new byte[size];
            in.readFully(frame);
            if (size >= 4
                    && fetchCorrelationIds.remove(ByteBuffer.wrap(frame, 0, 4).getInt())) {
                fetchResponseSizes.add(4 + size);
            }
            out.writeInt(size);
            out.write(frame);
            out.flush();
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
