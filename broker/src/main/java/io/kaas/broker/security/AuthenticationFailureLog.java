package io.kaas.broker.security;

import io.kaas.protocol.ClientSession;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authentication failures and legacy-client notices, logged with principal and address but never a
 * token, password or key. Failures are rate-limited (one line per second, the rest counted into the
 * next line) so a password-guessing client cannot flood the log; the librdkafka legacy-nonce notice
 * is logged once per user and host.
 */
public final class AuthenticationFailureLog {
    private static final Logger LOG = LoggerFactory.getLogger(AuthenticationFailureLog.class);
    private static final long INTERVAL_NANOS = 1_000_000_000L;
    private static final int MAX_REMEMBERED_CLIENTS = 10_000;

    private long lastLogged = System.nanoTime() - INTERVAL_NANOS;
    private long suppressed;
    private final Set<String> legacyClients = Collections.newSetFromMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_REMEMBERED_CLIENTS;
        }
    });

    public synchronized void failed(ClientSession session, String mechanism, String user, String reason) {
        long now = System.nanoTime();
        if (now - lastLogged < INTERVAL_NANOS) {
            suppressed++;
            return;
        }
        lastLogged = now;
        String more = suppressed == 0 ? "" : " (" + suppressed + " more failures not logged in the last interval)";
        suppressed = 0;
        LOG.warn(
                "authentication failed on listener {} from {}: mechanism {}, user {}: {}{}",
                session.listener().listenerName(),
                session.remote(),
                mechanism,
                user == null ? "(none)" : "User:" + printable(user),
                printable(String.valueOf(reason)),
                more);
    }

    /** A client chooses the user name: no control characters (log forging), no essays. */
    static String printable(String s) {
        String cut = s.length() > 128 ? s.substring(0, 128) + "..." : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }

    public synchronized void legacyNonce(ClientSession session, String user) {
        String host = session.remote() instanceof java.net.InetSocketAddress a
                ? a.getHostString()
                : String.valueOf(session.remote());
        if (legacyClients.add(user + "@" + host)) {
            LOG.warn(
                    "accepted a librdkafka < 2.6.1 SCRAM client-final nonce (client nonce repeated) from User:{} at {}; "
                            + "upgrade the client, or set {}=false to refuse it",
                    printable(user),
                    host,
                    SecurityConfig.LEGACY_SCRAM_NONCE);
        }
    }
}
