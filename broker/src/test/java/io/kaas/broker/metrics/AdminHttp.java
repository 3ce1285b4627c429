package io.kaas.broker.metrics;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** GETs against a broker's admin listener, timed (one JDK HttpClient per test class; no redirects, no proxy). */
public final class AdminHttp {
    public record Response(int status, String contentType, String body, long millis) {}

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    public AdminHttp(InetSocketAddress admin) {
        this.base = "http://127.0.0.1:" + admin.getPort();
    }

    public Response get(String path) throws IOException, InterruptedException {
        return get(path, null);
    }

    Response get(String path, String accept) throws IOException, InterruptedException {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(10))
                .GET();
        if (accept != null) {
            req.header("Accept", accept);
        }
        long start = System.nanoTime();
        HttpResponse<String> r = client.send(req.build(), HttpResponse.BodyHandlers.ofString());
        return new Response(
                r.statusCode(),
                r.headers().firstValue("Content-Type").orElse(""),
                r.body(),
                (System.nanoTime() - start) / 1_000_000);
    }

    PrometheusText scrape() throws IOException, InterruptedException {
        Response r = get("/metrics");
        if (r.status() != 200) {
            throw new AssertionError("/metrics answered " + r.status() + ": " + r.body());
        }
        return PrometheusText.parse(r.body());
    }
}
