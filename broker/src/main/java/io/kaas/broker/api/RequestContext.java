package io.kaas.broker.api;

import java.net.SocketAddress;

/** What a handler may know about the request besides its body. */
public record RequestContext(short apiVersion, String clientId, int correlationId, SocketAddress remote) {}
