package io.kaas.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;

/**
 * Waits until a broker answers a DescribeCluster (or, on old brokers, Metadata) request with at
 * least one node, so the harness never guesses a startup time with a sleep.
 *
 * <p>Usage: {@code AwaitBroker <bootstrap> <timeoutSeconds>}. Exit 0 when ready, 1 on timeout.
 */
public final class AwaitBroker {

    private AwaitBroker() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: AwaitBroker <bootstrap> <timeoutSeconds>");
            System.exit(2);
        }
        String bootstrap = args[0];
        Instant deadline = Instant.now().plusSeconds(Long.parseLong(args[1]));
        System.exit(await(bootstrap, deadline) ? 0 : 1);
    }

    static boolean await(String bootstrap, Instant deadline) throws InterruptedException {
        Throwable last = null;
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000,
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200))) {
            while (Instant.now().isBefore(deadline)) {
                try {
                    Collection<Node> nodes = admin.describeCluster().nodes().get(3, TimeUnit.SECONDS);
                    if (!nodes.isEmpty()) {
                        System.out.println(bootstrap + " ready: " + nodes);
                        return true;
                    }
                } catch (ExecutionException e) {
                    last = e.getCause();
                } catch (TimeoutException e) {
                    last = e;
                }
                // The admin client already backs off between connection attempts; this only bounds
                // how often a broker that refuses the request outright is asked again.
                Thread.sleep(Duration.ofMillis(200).toMillis());
            }
        }
        System.err.println(bootstrap + " not ready before the deadline; last error: " + last);
        return false;
    }
}
