package io.kaas.broker;

import io.kaas.protocol.RequestFrame;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/** A bare socket speaking Kafka frames: for hostile input and for byte-exact protocol checks. */
final class RawKafkaConnection implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private int correlationId;

    RawKafkaConnection(int port) throws IOException {
        this(port, null);
    }

    /** From {@code localAddress} (e.g. 127.0.0.2: all of 127/8 is loopback on Linux), or any when null. */
    RawKafkaConnection(int port, java.net.InetAddress localAddress) throws IOException {
        socket = new Socket(java.net.InetAddress.getByName("127.0.0.1"), port, localAddress, 0);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Encodes header + body at {@code version}, frames it, sends it; returns the correlation id used. */
    int send(ApiKeys api, short version, ApiMessage body) throws IOException {
        int id = ++correlationId;
        ByteBuffer frame = RequestFrame.encode(api, version, id, "raw-test", body);
        sendBytes(Arrays.copyOf(frame.array(), frame.limit()));
        return id;
    }

    /** Reads one response frame; returns the body after checking the correlation id. */
    ByteBuffer receive(ApiKeys api, short version, int expectedCorrelationId) throws IOException {
        int size = in.readInt();
        byte[] frame = new byte[size];
        in.readFully(frame);
        ByteBuffer buf = ByteBuffer.wrap(frame);
        ResponseHeaderData header =
                new ResponseHeaderData(new ByteBufferAccessor(buf), api.messageType.responseHeaderVersion(version));
        if (header.correlationId() != expectedCorrelationId) {
            throw new IllegalStateException(
                    "correlation id " + header.correlationId() + ", expected " + expectedCorrelationId);
        }
        return buf.slice();
    }

    @SuppressWarnings("unchecked")
    <R extends ApiMessage> R roundTrip(ApiKeys api, short version, ApiMessage body) throws IOException {
        int id = send(api, version, body);
        ByteBuffer b = receive(api, version, id);
        ApiMessage response = api.messageType.newResponse();
        response.read(new ByteBufferAccessor(b), version);
        return (R) response;
    }

    /** True when the broker closed the connection (EOF) within the socket timeout. */
    boolean closedByBroker() throws IOException {
        try {
            return in.read() == -1;
        } catch (EOFException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // connection reset
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
