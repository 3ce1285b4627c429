package io.kaas.broker.api;

import io.kaas.broker.security.ClientSession;
import java.net.SocketAddress;

/** What a handler may know about the request besides its body, including its connection's security state. */
public record RequestContext(short apiVersion, String clientId, int correlationId, SocketAddress remote,
                             ClientSession session) {}
