package io.kaas.protocol;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache's connection quotas: at most {@code max.connections} open connections on the broker and
 * {@code max.connections.per.ip} from one address ({@code max.connections.per.ip.overrides} per host
 * or IP). A connection over a limit is closed as soon as it is accepted, before it can cost a TLS
 * handshake or a frame buffer. Thread-safe (monitor); acquired on accept, released on close.
 */
public final class ConnectionLimits {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimits.class);
    public static final String MAX_CONNECTIONS = "max.connections";
    public static final String MAX_PER_IP = "max.connections.per.ip";
    public static final String PER_IP_OVERRIDES = "max.connections.per.ip.overrides";

    private static final long REFUSAL_LOG_INTERVAL_NANOS = 10_000_000_000L;
    private static final int MAX_REFUSAL_LOGS = 1024;

    private final int maxTotal;
    private final int maxPerIp;
    private final Map<InetAddress, Integer> overrides;
    private final Map<InetAddress, Integer> open = new HashMap<>();
    private int total;
    private final Map<InetAddress, RefusalLog> refusalLogs = new HashMap<>();

    public ConnectionLimits(int maxTotal, int maxPerIp, Map<InetAddress, Integer> overrides) {
        this.maxTotal = maxTotal;
        this.maxPerIp = maxPerIp;
        this.overrides = Map.copyOf(overrides);
    }

    public static ConnectionLimits none() {
        return new ConnectionLimits(Integer.MAX_VALUE, Integer.MAX_VALUE, Map.of());
    }

    /** From Apache's keys (unset = unlimited); {@code overrides} is {@code host:count,...}, hosts resolved now. */
    public static ConnectionLimits of(String maxTotal, String maxPerIp, String overrides) {
        Map<InetAddress, Integer> byAddress = new HashMap<>();
        if (overrides != null && !overrides.isBlank()) {
            for (String entry : overrides.split(",")) {
                int colon = entry.lastIndexOf(':');
                if (colon <= 0) {
                    throw new ConfigException(PER_IP_OVERRIDES, overrides, "entries must be host:count");
                }
                String host = entry.substring(0, colon).trim();
                try {
                    byAddress.put(InetAddress.getByName(host), count(PER_IP_OVERRIDES, entry.substring(colon + 1)));
                } catch (UnknownHostException e) {
                    throw new ConfigException(PER_IP_OVERRIDES, overrides, "unknown host " + host);
                }
            }
        }
        return new ConnectionLimits(
                maxTotal == null ? Integer.MAX_VALUE : count(MAX_CONNECTIONS, maxTotal),
                maxPerIp == null ? Integer.MAX_VALUE : count(MAX_PER_IP, maxPerIp),
                byAddress);
    }

    private static int count(String key, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException(key, value, "must be a number of connections >= 0");
    }

    /** @return null when {@code address} may open one more connection (now counted), else which limit it hit */
    public synchronized String tryAcquire(InetAddress address) {
        int mine = open.getOrDefault(address, 0);
        if (mine >= overrides.getOrDefault(address, maxPerIp)) {
            return MAX_PER_IP;
        }
        if (total >= maxTotal) {
            return MAX_CONNECTIONS;
        }
        open.put(address, mine + 1);
        total++;
        return null;
    }

    /**
     * One WARN per address and interval at most, with how many more were refused meanwhile: a client
     * reconnecting in a loop must not flood the log, yet every address that is refused shows up. The
     * per-address memory is dropped for addresses quiet for an interval once it holds many.
     */
    public synchronized void logRefusal(InetSocketAddress remote, String limit) {
        long now = System.nanoTime();
        InetAddress address = remote.getAddress();
        RefusalLog seen = refusalLogs.get(address);
        if (seen != null && now - seen.loggedAtNanos < REFUSAL_LOG_INTERVAL_NANOS) {
            seen.notLogged++;
            return;
        }
        String more = seen == null || seen.notLogged == 0
                ? ""
                : " (" + seen.notLogged + " more from it refused in the last interval)";
        if (refusalLogs.size() >= MAX_REFUSAL_LOGS) {
            refusalLogs.values().removeIf(r -> now - r.loggedAtNanos >= REFUSAL_LOG_INTERVAL_NANOS);
        }
        refusalLogs.put(address, new RefusalLog(now));
        LOG.warn("closing connection from {}: {} reached ({}){}", remote, limit, limitOf(address, limit), more);
    }

    private int limitOf(InetAddress address, String limit) {
        return limit.equals(MAX_CONNECTIONS) ? maxTotal : overrides.getOrDefault(address, maxPerIp);
    }

    private static final class RefusalLog {
        final long loggedAtNanos;
        long notLogged;

        RefusalLog(long loggedAtNanos) {
            this.loggedAtNanos = loggedAtNanos;
        }
    }

    public synchronized void release(InetAddress address) {
        Integer mine = open.get(address);
        if (mine == null) {
            return;
        }
        if (mine <= 1) {
            open.remove(address);
        } else {
            open.put(address, mine - 1);
        }
        total--;
    }
}
