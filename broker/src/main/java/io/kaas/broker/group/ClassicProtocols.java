package io.kaas.broker.group;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.kafka.common.message.JoinGroupRequestData;

/**
 * Which protocol a classic group runs, as Apache's {@code ClassicGroup} decides it: a joining member must share the
 * group's protocol type and at least one protocol with every other member; the group runs the leader's most preferred
 * protocol that every member supports. Pure functions over the members, called under their group's monitor.
 */
final class ClassicProtocols {
    private ClassicProtocols() {}

    /** Whether a member may join a non-empty group of {@code protocolType} whose other members are {@code members}. */
    static boolean compatible(JoinGroupRequestData req, String protocolType, Collection<Member> members, Member self) {
        if (!req.protocolType().equals(protocolType)) {
            return false;
        }
        Set<String> common = null;
        for (Member m : members) {
            if (m == self) {
                continue;
            }
            if (common == null) {
                common = new HashSet<>(m.protocols.keySet());
            } else {
                common.retainAll(m.protocols.keySet());
            }
        }
        if (common == null) {
            return true;
        }
        for (JoinGroupRequestData.JoinGroupRequestProtocol p : req.protocols()) {
            if (common.contains(p.name())) {
                return true;
            }
        }
        return false;
    }

    /** The leader's most preferred protocol that every member supports (its first, if none is common). */
    static String select(Member leader, Collection<Member> members) {
        Set<String> common = new LinkedHashSet<>(leader.protocols.keySet());
        members.forEach(m -> common.retainAll(m.protocols.keySet()));
        return common.isEmpty()
                ? leader.protocols.keySet().iterator().next()
                : common.iterator().next();
    }

    /** The topics members subscribed to, when the group runs the consumer protocol (for OffsetDelete). */
    static Set<String> subscribedTopics(String protocolType, String protocolName, Collection<Member> members) {
        Set<String> topics = new HashSet<>();
        if (!"consumer".equals(protocolType) || protocolName == null) {
            return topics;
        }
        for (Member m : members) {
            byte[] meta = m.protocols.get(protocolName);
            if (meta != null) {
                topics.addAll(ConsumerSubscriptions.topics(meta));
            }
        }
        return topics;
    }
}
