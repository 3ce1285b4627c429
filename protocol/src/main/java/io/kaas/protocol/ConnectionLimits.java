package io.kaas.protocol;

import java.net.InetAddress;
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

    private final int maxTotal;
    private final int maxPerIp;
    private final Map<InetAddress, Integer> overrides;
    private final Map<InetAddress, Integer> open = new HashMap<>();
    private int total;
    private long lastRefusalLog = System.nanoTime() - 1_000_000_000L;
    private long refusalsNotLogged;

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
            return "max.connections.per.ip";
        }
        if (total >= maxTotal) {
            return "max.connections";
        }
        open.put(address, mine + 1);
        total++;
        return null;
    }

    /** One WARN a second at most: a client hammering the broker must not flood the log. */
    public synchronized void logRefusal(Object remote, String limit) {
        long now = System.nanoTime();
        if (now - lastRefusalLog < 1_000_000_000L) {
            refusalsNotLogged++;
            return;
        }
        lastRefusalLog = now;
        String more = refusalsNotLogged == 0 ? "" : " (" + refusalsNotLogged + " more refused in the last interval)";
        refusalsNotLogged = 0;
        LOG.warn("closing connection from {}: {} reached{}", remote, limit, more);
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
