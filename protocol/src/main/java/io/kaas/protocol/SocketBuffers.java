package io.kaas.protocol;

/**
 * The kernel buffer sizes of accepted connections: Apache's {@code socket.send.buffer.bytes} and
 * {@code socket.receive.buffer.bytes}, -1 meaning the operating system's (Linux autotunes them).
 *
 * <p>kaas's default is the operating system's for both, where Apache sets 100 KiB: measured here on loopback
 * (bench/history/2026-12-01-cpu-per-record.md, "Consume: where the broker's kernel time goes, and socket buffers"), 100 KiB send buffers cut
 * the broker's kernel time per consumed record by about a quarter but cost three consumers 15-30% of their
 * throughput. A server.properties from Apache that sets them gets what it asks for.
 *
 * @param sendBytes    SO_SNDBUF of each accepted socket, or -1
 * @param receiveBytes SO_RCVBUF of the listening socket (inherited by accepted ones, so that TCP window
 *                     scaling is agreed for it) and of each accepted socket, or -1
 */
public record SocketBuffers(int sendBytes, int receiveBytes) {
    /** The operating system's sizes ({@code -1}, Apache's {@code Selectable.USE_DEFAULT_BUFFER_SIZE}). */
    public static final int OS_DEFAULT = -1;

    public static final SocketBuffers OS_DEFAULTS = new SocketBuffers(OS_DEFAULT, OS_DEFAULT);

    public SocketBuffers {
        check("socket.send.buffer.bytes", sendBytes);
        check("socket.receive.buffer.bytes", receiveBytes);
    }

    /** The problem with {@code value} for {@code key}, or null: positive, or -1 for the operating system's. */
    public static String problem(int value) {
        return value == OS_DEFAULT || value > 0
                ? null
                : "must be positive, or -1 for the operating system's default; got " + value;
    }

    private static void check(String key, int value) {
        String p = problem(value);
        if (p != null) {
            throw new IllegalArgumentException(key + " " + p);
        }
    }

    /** The size to set, or null to leave the operating system's (what Netty takes to mean: do not set). */
    Integer sendOption() {
        return sendBytes == OS_DEFAULT ? null : sendBytes;
    }

    Integer receiveOption() {
        return receiveBytes == OS_DEFAULT ? null : receiveBytes;
    }
}
