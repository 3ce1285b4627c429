package io.kaas.broker.cluster;

import io.kaas.broker.security.InterBrokerListener;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.BrokerRegistration;
import io.kaas.cluster.ClusterMember;
import io.kaas.cluster.Endpoint;
import java.io.IOException;

/**
 * Where another broker's inter-broker listener is: the endpoint of that name in its registration
 * ({@link BrokerRegistration#endpoints}), as Apache's brokers find each other's {@code inter.broker.listener.name}
 * endpoints in their registrations.
 */
public final class RegisteredPeers implements InterBrokerClient.PeerAddresses {
    private final ClusterMember member;
    private final String listenerName;

    public RegisteredPeers(ClusterMember member, String listenerName) {
        this.member = member;
        this.listenerName = listenerName;
    }

    @Override
    public Endpoint of(BrokerNode to) throws IOException {
        BrokerRegistration r = member.registration(to.nodeId())
                .orElseThrow(() -> new IOException("broker " + to.nodeId() + " is not live"));
        if (r.endpoints().isEmpty()) {
            // Registered by a build that did not list its listeners: its first advertised one is all there is.
            return new Endpoint(listenerName, r.host(), r.port());
        }
        return r.endpoint(listenerName)
                .orElseThrow(() -> new IOException("broker " + to.nodeId() + " has no listener " + listenerName + " ("
                        + InterBrokerListener.LISTENER_NAME + "); it registered " + r.endpoints()));
    }
}
