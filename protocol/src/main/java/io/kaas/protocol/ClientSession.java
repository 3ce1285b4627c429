package io.kaas.protocol;

import io.netty.util.AttributeKey;
import java.net.SocketAddress;
import javax.security.sasl.SaslServer;

/**
 * One connection's security state: its listener, who it is ({@code User:ANONYMOUS} until TLS client
 * auth or SASL says otherwise), whether it may send anything but ApiVersions/SASL yet, and the SASL
 * exchange in progress. Written by the SASL handlers on request-handler threads and read by the
 * authentication gate on the event loop, hence volatile fields; requests of one connection are
 * handled one at a time, so no two writers race.
 */
public final class ClientSession implements MutableConnection {
    public static final AttributeKey<ClientSession> KEY = AttributeKey.valueOf("kaas-client-session");
    public static final String ANONYMOUS = "User:ANONYMOUS";

    /** Where a SASL exchange stands (Apache's SaslServerAuthenticator states, reduced). */
    public enum SaslStage {
        AWAIT_HANDSHAKE,
        AWAIT_AUTHENTICATE,
        AUTHENTICATED,
        FAILED
    }

    private final ListenerSecurity listener;
    private final SocketAddress remote;
    private volatile String principal = ANONYMOUS;
    private volatile SaslStage stage;
    private volatile SaslServer saslServer;
    private volatile String mechanism;
    private volatile boolean closeAfterResponse;
    /** The SASL user once authenticated; kept while it re-authenticates (KIP-368). */
    private volatile String saslUser;
    /** Logged in with a delegation token (SCRAM {@code tokenauth}): such a connection may not manage tokens. */
    private volatile boolean tokenAuthenticated;
    /** When the SASL session ends unless re-authenticated ({@code connections.max.reauth.ms}); 0 = never. */
    private volatile long expiresAtNanos;
    /** KIP-219: not read from until then (System.nanoTime), after a response that throttled it; 0 = not muted. */
    private volatile long mutedUntilNanos;
    /** KIP-511: what the client said it is in ApiVersions v3+ ("unknown" before, as Apache's ClientInformation). */
    private volatile String softwareName = UNKNOWN_SOFTWARE;

    private volatile String softwareVersion = UNKNOWN_SOFTWARE;
    /** Run once when the connection closes, by key (a client's telemetry instance ends with it, KIP-714). */
    private final java.util.concurrent.ConcurrentHashMap<String, Runnable> onClose =
            new java.util.concurrent.ConcurrentHashMap<>();

    private volatile boolean closed;

    /** Apache's {@code ClientInformation.UNKNOWN_NAME_OR_VERSION}. */
    public static final String UNKNOWN_SOFTWARE = "unknown";

    public ClientSession(ListenerSecurity listener, SocketAddress remote) {
        this.listener = listener;
        this.remote = remote;
        this.stage = listener.sasl() ? SaslStage.AWAIT_HANDSHAKE : SaslStage.AUTHENTICATED;
    }

    /** A session for a plaintext connection (tests and callers without a listener). */
    public static ClientSession plaintext(SocketAddress remote) {
        return new ClientSession(ListenerSecurity.plaintext("PLAINTEXT"), remote);
    }

    public ListenerSecurity listener() {
        return listener;
    }

    public SocketAddress remote() {
        return remote;
    }

    public String principal() {
        return principal;
    }

    public void principal(String p) {
        this.principal = p;
    }

    /** May send any request: authenticated, or re-authenticating an earlier SASL session (KIP-368). */
    public boolean authenticated() {
        return stage == SaslStage.AUTHENTICATED || saslUser != null;
    }

    /** The SASL user, or null before SASL succeeded. */
    public String saslUser() {
        return saslUser;
    }

    public boolean tokenAuthenticated() {
        return tokenAuthenticated;
    }

    /** KIP-368: the session lifetime passed without a re-authentication. */
    public boolean sessionExpired() {
        long at = expiresAtNanos;
        return at != 0 && System.nanoTime() - at > 0;
    }

    /** Over a quota: the connection is read no more for {@code ms} (its response is sent at once). */
    @Override
    public void muteFor(long ms) {
        mutedUntilNanos = Math.max(1, System.nanoTime() + ms * 1_000_000);
    }

    /** Nanoseconds left of a quota mute; 0 when reads may go on. */
    public long mutedForNanos() {
        long until = mutedUntilNanos;
        if (until == 0) {
            return 0;
        }
        long left = until - System.nanoTime();
        return Math.max(0, left);
    }

    public SaslStage stage() {
        return stage;
    }

    public void startSasl(String mechanism, SaslServer server) {
        this.mechanism = mechanism;
        this.saslServer = server;
        this.stage = SaslStage.AWAIT_AUTHENTICATE;
    }

    public String mechanism() {
        return mechanism;
    }

    public SaslServer saslServer() {
        return saslServer;
    }

    /** SASL succeeded; with {@code lifetimeMs} > 0 the client must re-authenticate within it. */
    public void authenticatedAs(String user, long lifetimeMs) {
        authenticatedAs(user, lifetimeMs, false);
    }

    /** SASL succeeded, with a delegation token when {@code token}. */
    public void authenticatedAs(String user, long lifetimeMs, boolean token) {
        this.tokenAuthenticated = token;
        this.principal = "User:" + user;
        this.saslUser = user;
        this.saslServer = null;
        this.expiresAtNanos = lifetimeMs > 0 ? Math.max(1, System.nanoTime() + lifetimeMs * 1_000_000) : 0;
        this.stage = SaslStage.AUTHENTICATED;
    }

    /** The exchange failed: the response is sent, then the connection closes (as Apache does). */
    public void fail() {
        this.saslServer = null;
        this.saslUser = null;
        this.stage = SaslStage.FAILED;
        this.closeAfterResponse = true;
    }

    public boolean closeAfterResponse() {
        return closeAfterResponse;
    }

    /** KIP-511's client software name and version from ApiVersions v3+ (blank ones stay "unknown"). */
    public void clientSoftware(String name, String version) {
        if (name != null && !name.isBlank()) {
            this.softwareName = name;
        }
        if (version != null && !version.isBlank()) {
            this.softwareVersion = version;
        }
    }

    public String softwareName() {
        return softwareName;
    }

    public String softwareVersion() {
        return softwareVersion;
    }

    /**
     * Runs {@code action} when the connection closes (at once if it has closed already); a second action under
     * the same {@code key} is not added.
     */
    public void onCloseOnce(String key, Runnable action) {
        if (onClose.putIfAbsent(key, action) == null && closed && onClose.remove(key, action)) {
            action.run();
        }
    }

    /** The connection closed: runs what {@link #onCloseOnce} registered, each once. */
    public void closed() {
        closed = true;
        for (String key : onClose.keySet()) {
            Runnable r = onClose.remove(key);
            if (r != null) {
                r.run();
            }
        }
    }
}
