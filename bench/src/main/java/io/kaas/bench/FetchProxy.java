package io.kaas.bench;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A loopback TCP proxy in front of brokers that logs the size of every Fetch request (api key 1)
 * passing through it, so the fetch-session request size can be measured on the wire rather than
 * estimated from the protocol.
 *
 * <p>Usage: {@code FetchProxy <logFile> <listenPort>=<host>:<port>...}. Each broker advertises its
 * proxy's address, so every client connection after the bootstrap one goes through here too.
 * One line per Fetch request: {@code <listenPort> <apiVersion> <clientId> <bytes>}, where bytes is
 * the whole frame on the wire (the 4-byte size prefix included). Runs until killed.
 */
public final class FetchProxy {
    static final short FETCH = 1;

    private FetchProxy() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: FetchProxy <logFile> <listenPort>=<host>:<port>...");
            System.exit(2);
        }
        PrintWriter log = new PrintWriter(Files.newBufferedWriter(Path.of(args[0]), StandardCharsets.UTF_8), true);
        for (int i = 1; i < args.length; i++) {
            String[] parts = args[i].split("=", 2);
            int listenPort = Integer.parseInt(parts[0]);
            String host = parts[1].substring(0, parts[1].lastIndexOf(':'));
            int port = Integer.parseInt(parts[1].substring(parts[1].lastIndexOf(':') + 1));
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort));
            Thread accept = new Thread(() -> acceptLoop(server, listenPort, new InetSocketAddress(host, port), log),
                    "accept-" + listenPort);
            accept.start();
        }
        System.out.println("proxying " + String.join(" ", java.util.Arrays.asList(args).subList(1, args.length)));
    }

    private static void acceptLoop(ServerSocket server, int listenPort, InetSocketAddress target, PrintWriter log) {
        while (true) {
            try {
                Socket client = server.accept();
                Socket broker = new Socket();
                try {
                    broker.connect(target, 5000);
                } catch (IOException e) {
                    client.close();
                    continue;
                }
                client.setTcpNoDelay(true);
                broker.setTcpNoDelay(true);
                daemon(() -> requests(client, broker, listenPort, log));
                daemon(() -> copy(broker, client));
            } catch (IOException e) {
                System.err.println("accept on " + listenPort + " failed: " + e);
                return;
            }
        }
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r);
        t.setDaemon(true);
        t.start();
    }

    /** Client to broker, frame by frame: requests are where the Fetch frames are. */
    private static void requests(Socket client, Socket broker, int listenPort, PrintWriter log) {
        try (client; broker) {
            DataInputStream in = new DataInputStream(client.getInputStream());
            OutputStream out = broker.getOutputStream();
            while (true) {
                int size;
                try {
                    size = in.readInt();
                } catch (EOFException e) {
                    return;
                }
                byte[] frame = new byte[4 + size];
                ByteBuffer.wrap(frame).putInt(size);
                in.readFully(frame, 4, size);
                if (size >= 10) {
                    ByteBuffer header = ByteBuffer.wrap(frame, 4, size);
                    short apiKey = header.getShort();
                    short apiVersion = header.getShort();
                    header.getInt(); // correlation id
                    if (apiKey == FETCH) {
                        short len = header.getShort();
                        String clientId = len < 0 ? "-" : new String(frame, header.position(), len, StandardCharsets.UTF_8);
                        log.println(listenPort + " " + apiVersion + " " + clientId + " " + frame.length);
                    }
                }
                out.write(frame);
                out.flush();
            }
        } catch (IOException e) {
            // A closed connection on either side ends this pair; the client sees the close as Kafka clients expect.
        }
    }

    private static void copy(Socket from, Socket to) {
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            in.transferTo(out);
        } catch (IOException e) {
            // as above
        } finally {
            try {
                to.close();
                from.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
