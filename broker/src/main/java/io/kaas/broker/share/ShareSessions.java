package io.kaas.broker.share;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareFetch sessions (KIP-932), one per member of a group: epoch 0 opens a session with the
 * request's partitions, each later request must carry the next epoch and adds partitions or forgets
 * some, and epoch -1 closes it (its acknowledgements still apply). Thread-safe.
 */
public final class ShareSessions {
    /** Where a request stands in its session. */
    public record Opened(Errors error, Set<TopicIdPartition> partitions) {}

    private record Key(String groupId, String memberId) {}

    private static final class Session {
        int nextEpoch = 1;
        final Set<TopicIdPartition> partitions = new LinkedHashSet<>();
    }

    private final Map<Key, Session> sessions = new HashMap<>();

    /**
     * Applies a request to its member's session: {@code added} joins it, {@code forgotten} leaves it.
     * Answers the session's partitions, or SHARE_SESSION_NOT_FOUND / INVALID_SHARE_SESSION_EPOCH.
     */
    synchronized Opened apply(
            String groupId, String memberId, int epoch, Set<TopicIdPartition> added, Set<TopicIdPartition> forgotten) {
        Key k = new Key(groupId, memberId);
        if (epoch == 0) {
            Session s = new Session();
            s.partitions.addAll(added);
            sessions.put(k, s);
            return new Opened(Errors.NONE, Set.copyOf(s.partitions));
        }
        Session s = sessions.get(k);
        if (epoch == -1) {
            sessions.remove(k);
            return new Opened(Errors.NONE, Set.of());
        }
        if (s == null) {
            return new Opened(Errors.SHARE_SESSION_NOT_FOUND, Set.of());
        }
        if (epoch != s.nextEpoch) {
            return new Opened(Errors.INVALID_SHARE_SESSION_EPOCH, Set.of());
        }
        s.nextEpoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
        s.partitions.addAll(added);
        s.partitions.removeAll(forgotten);
        return new Opened(Errors.NONE, Set.copyOf(s.partitions));
    }

    /** Checks an acknowledgement-only request's epoch (ShareAcknowledge), moving the session on. */
    synchronized Errors acknowledge(String groupId, String memberId, int epoch) {
        if (epoch == 0) {
            return Errors.INVALID_SHARE_SESSION_EPOCH;
        }
        return apply(groupId, memberId, epoch, Set.of(), Set.of()).error();
    }

    synchronized void close(String groupId, String memberId) {
        sessions.remove(new Key(groupId, memberId));
    }
}
