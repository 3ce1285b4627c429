package io.kaas.broker.security;

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
public final class ClientSession {
    public static final AttributeKey<ClientSession> KEY = AttributeKey.valueOf("kaas-client-session");
    public static final String ANONYMOUS = "User:ANONYMOUS";

    /** Where a SASL exchange stands (Apache's SaslServerAuthenticator states, reduced). */
    public enum SaslStage { AWAIT_HANDSHAKE, AWAIT_AUTHENTICATE, AUTHENTICATED, FAILED }

    private final ListenerSecurity listener;
    private final SocketAddress remote;
    private volatile String principal = ANONYMOUS;
    private volatile SaslStage stage;
    private volatile SaslServer saslServer;
    private volatile String mechanism;
    private volatile boolean closeAfterResponse;

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

    public boolean authenticated() {
        return stage == SaslStage.AUTHENTICATED;
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

    public void authenticatedAs(String user) {
        this.principal = "User:" + user;
        this.saslServer = null;
        this.stage = SaslStage.AUTHENTICATED;
    }

    /** The exchange failed: the response is sent, then the connection closes (as Apache does). */
    public void fail() {
        this.saslServer = null;
        this.stage = SaslStage.FAILED;
        this.closeAfterResponse = true;
    }

    public boolean closeAfterResponse() {
        return closeAfterResponse;
    }
}
