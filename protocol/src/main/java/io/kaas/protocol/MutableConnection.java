package io.kaas.protocol;

/**
 * A client connection a quota can silence: over a quota, it is read no more for a while (KIP-219: the response goes
 * out at once with its throttle time, the channel is muted after). Implemented by the broker's per-connection session,
 * so quotas need not know what else a session holds.
 */
public interface MutableConnection {
    /** The connection is read no more for {@code ms}. */
    void muteFor(long ms);
}
