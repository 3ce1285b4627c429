package io.kaas.broker.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The admin listener: {@code GET /metrics} (Prometheus text, or OpenMetrics when the Accept header asks:
 * client_java's own scrape handler does the negotiation, gzip and {@code name[]} filtering),
 * {@code /healthz} (the process answers: 200), {@code /readyz} (200, or 503 with the reasons as JSON).
 * Any other path is 404, any other method 405.
 *
 * <p>It runs on the JDK's HttpServer with two threads of its own ({@code kaas-admin-http}), apart from
 * the Kafka listeners' event loops and the request handlers: a broker saturated by clients, or a
 * partition whose fsync hangs, still answers its probes. Netty would have meant writing the HTTP
 * side, content negotiation included, that the exporter already has.
 */
public final class AdminServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService threads;

    private AdminServer(HttpServer server, ExecutorService threads) {
        this.server = server;
        this.threads = threads;
    }

    /**
     * Binds and starts. A taken port is an {@link UncheckedIOException} whose message names the address
     * and the option, so {@code kaas serve} prints one line and exits 3.
     */
    public static AdminServer start(InetSocketAddress address, PrometheusRegistry registry, Readiness readiness) {
        InetSocketAddress bindTo =
                address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
        HttpServer server;
        try {
            server = HttpServer.create(bindTo, 16);
        } catch (BindException e) {
            throw new UncheckedIOException(new BindException("admin listener " + address.getHostString() + ":"
                    + address.getPort() + ": cannot bind (" + e.getMessage()
                    + "); choose another with --admin-listener or KAAS_ADMIN_LISTENER, or 'none'"));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "admin listener " + address.getHostString() + ":" + address.getPort() + ": " + e.getMessage(), e);
        }
        AtomicInteger n = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "kaas-admin-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        MetricsHandler metrics = new MetricsHandler(registry);
        server.createContext("/", exchange -> route(exchange, metrics, readiness));
        server.setExecutor(threads);
        server.start();
        return new AdminServer(server, threads);
    }

    private static void route(HttpExchange exchange, MetricsHandler metrics, Readiness readiness) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, 405, "text/plain; charset=utf-8", "method not allowed\n");
                return;
            }
            switch (exchange.getRequestURI().getPath()) {
                case "/metrics" -> metrics.handle(exchange);
                case "/healthz" -> send(exchange, 200, "text/plain; charset=utf-8", "ok\n");
                case "/readyz" -> {
                    Readiness.Status s = readiness.check();
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("status", s.ready() ? "ready" : "not ready");
                    if (!s.ready()) {
                        body.put("reasons", s.reasons());
                    }
                    if (!s.offlineLogDirs().isEmpty()) {
                        body.put("offline_log_dirs", s.offlineLogDirs());
                    }
                    send(exchange, s.ready() ? 200 : 503, "application/json", JSON.writeValueAsString(body) + "\n");
                }
                default ->
                    send(exchange, 404, "text/plain; charset=utf-8", "not found: try /metrics, /healthz or /readyz\n");
            }
        }
    }

    private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** The bound address (the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
