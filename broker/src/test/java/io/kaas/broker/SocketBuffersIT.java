package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.protocol.SocketBuffers;
import io.kaas.storage.testing.ExternalTool;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * socket.send.buffer.bytes and socket.receive.buffer.bytes reach the kernel: the broker's side of a connection, as
 * {@code ss -tm} shows it (Linux doubles what setsockopt asks for, to leave room for its bookkeeping).
 */
class SocketBuffersIT {
    private static final Pattern SKMEM = Pattern.compile("rb(\\d+),.*tb(\\d+)");

    @TempDir
    Path dir;

    @Test
    void acceptedConnectionsGetTheConfiguredBuffers() throws Exception {
        ExternalTool.SS.assumePresent();
        BrokerConfig config = BrokerConfig.forTest(dir).withSocketBuffers(new SocketBuffers(65536, 49152));
        try (TestBroker b = new TestBroker(config);
                Socket client = new Socket("127.0.0.1", b.broker().boundPort())) {
            int port = b.broker().boundPort();
            long[] sizes = await().atMost(Duration.ofSeconds(10)).until(() -> brokerSide(port), s -> s != null);
            assertThat(sizes[1]).as("SO_SNDBUF").isEqualTo(2 * 65536);
            assertThat(sizes[0]).as("SO_RCVBUF").isEqualTo(2 * 49152);
            assertThat(client.isConnected()).isTrue();
        }
    }

    /** rb and tb of the broker's end of the connection to {@code port}, or null until {@code ss} shows it. */
    private static long[] brokerSide(int port) throws IOException, InterruptedException {
        Process ss = new ProcessBuilder("ss", "-tmnH", "state", "established", "( sport = :" + port + " )")
                .redirectErrorStream(true)
                .start();
        String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!ss.waitFor(10, TimeUnit.SECONDS) || ss.exitValue() != 0) {
            throw new IOException("ss failed: " + out);
        }
        Matcher m = SKMEM.matcher(out);
        return m.find() ? new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))} : null;
    }
}
