package io.kaas.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One listener in Kafka's syntax, {@code NAME://host:port}; the name is mapped to a security
 * protocol by {@code listener.security.protocol.map} (the default maps each protocol's own name). Port 0 asks the OS for a free port
 * (tests); {@link KaasBroker#boundPort()} tells which one it chose.
 */
public record Endpoint(String listenerName, String host, int port) {
    public Endpoint {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("listener port must be 0..65535, got " + port);
        }
        // Any name: listener.security.protocol.map decides its protocol (PLAINTEXT, SSL, SASL_*).
        if (!listenerName.matches("[A-Z0-9_-]+")) {
            throw new IllegalArgumentException(
                    "listener name must be letters, digits, '_' or '-', got '" + listenerName + "'");
        }
    }

    /** Parses {@code PLAINTEXT://127.0.0.1:9092,PLAINTEXT://[::1]:9093}; an empty host means all interfaces. */
    public static List<Endpoint> parseList(String text) {
        List<Endpoint> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String s = part.trim();
            if (!s.isEmpty()) {
                out.add(parse(s));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no listener in '" + text + "'");
        }
        return out;
    }

    /**
     * A listener list as {@code KAAS_LISTENERS} may hold it: Kafka's comma-separated syntax, or the
     * original's JSON form, an array of {@code "NAME://host:port"} strings or of
     * {@code {"name": .., "host": .., "port": ..}} objects, or an object {@code {"NAME": "host:port"}}.
     */
    public static List<Endpoint> parseListOrJson(String text) {
        String t = text.trim();
        if (!t.startsWith("[") && !t.startsWith("{")) {
            return parseList(t);
        }
        com.fasterxml.jackson.databind.JsonNode root;
        try {
            root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(t);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(
                    "listeners '" + text + "' is neither NAME://host:port,... nor valid JSON: " + e.getMessage());
        }
        List<Endpoint> out = new ArrayList<>();
        if (root.isObject()) {
            root.fields()
                    .forEachRemaining(
                            f -> out.add(parse(f.getKey() + "://" + f.getValue().asText())));
        } else {
            for (com.fasterxml.jackson.databind.JsonNode n : root) {
                if (n.isTextual()) {
                    out.add(parse(n.asText()));
                } else if (n.isObject() && n.has("port")) {
                    String name = n.has("name") ? n.get("name").asText() : "PLAINTEXT";
                    String host = n.has("host") ? n.get("host").asText() : "";
                    out.add(new Endpoint(
                            name.toUpperCase(Locale.ROOT), host, n.get("port").asInt()));
                } else {
                    throw new IllegalArgumentException("listener entry " + n + " needs a port");
                }
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no listener in '" + text + "'");
        }
        return out;
    }

    public static Endpoint parse(String text) {
        int sep = text.indexOf("://");
        if (sep < 0) {
            throw new IllegalArgumentException("listener '" + text + "' is not NAME://host:port");
        }
        String name = text.substring(0, sep).toUpperCase(Locale.ROOT);
        String hostPort = text.substring(sep + 3);
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("listener '" + text + "' has no port");
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("listener '" + text + "' has a port that is not a number");
        }
        return new Endpoint(name, host, port);
    }

    public Endpoint withPort(int newPort) {
        return new Endpoint(listenerName, host, newPort);
    }

    @Override
    public String toString() {
        return listenerName + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
