package io.kaas.broker;

import io.kaas.broker.cluster.InterBrokerClient;
import io.kaas.broker.cluster.ProducerIdAllocator;
import io.kaas.broker.cluster.RegisteredPeers;
import io.kaas.broker.cluster.TopicCatalog;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.security.InterBrokerListener;
import io.kaas.broker.security.SecurityConfig;
import io.kaas.broker.share.ShareGroups;
import io.kaas.broker.txn.TransactionConfig;
import io.kaas.broker.txn.TransactionCoordinator;
import io.kaas.broker.txn.TransactionPeers;
import io.kaas.cluster.BrokerNode;
import io.kaas.cluster.ClusterMember;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.CoordinatorSlots;
import io.kaas.storage.TopicInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's coordinators, started as one step of {@link KaasBroker#start}: the group coordinator, the producer
 * ids, the transaction coordinator (its prepared transactions completed before any listener is bound) and, for a
 * broker sharing its directory, the requests to the other brokers and the listener through which the membership
 * hands the coordinators each slot this broker gains or loses. Whatever it starts it registers with the broker's
 * {@link StartedResources}.
 *
 * @param transactionPeers the other brokers' transaction coordinators, or null for a broker on its own
 * @param peers requests to the other brokers, or null for a broker on its own
 */
record Coordinators(
        GroupCoordinator groups,
        ShareGroups shares,
        ProducerIdAllocator producerIds,
        TransactionCoordinator transactions,
        TransactionPeers transactionPeers,
        InterBrokerClient peers) {
    private static final Logger LOG = LoggerFactory.getLogger(Coordinators.class);
    private static final Duration INTER_BROKER_TIMEOUT = Duration.ofSeconds(10);

    /** The settings the coordinators are made with. */
    record Setting(
            BrokerConfig config,
            SecurityConfig security,
            InterBrokerListener interBroker,
            TransactionConfig transactionConfig) {}

    /**
     * Makes and starts the coordinators over {@code clusterDir}; with a {@code member} (and its {@code store}), as
     * one broker of several over the shared directory.
     */
    static Coordinators start(
            Setting s,
            Path clusterDir,
            ScheduledExecutorService timer,
            TopicCatalog topics,
            ClusterStore store,
            ClusterMember member,
            Supplier<BrokerNode> self,
            StartedResources started) {
        GroupCoordinator groups = new GroupCoordinator(
                clusterDir,
                timer,
                s.config().consumerGroups(),
                () -> topics.topics().stream().collect(Collectors.toMap(TopicInfo::name, t -> t)));
        ShareGroups shares = new ShareGroups(
                clusterDir,
                groups.configs(),
                () -> topics.topics().stream().collect(Collectors.toMap(TopicInfo::name, t -> t)),
                timer);
        started.add("the share groups", shares::close);
        ProducerIdAllocator producerIds = store == null
                ? new ProducerIdAllocator(clusterDir)
                : new ProducerIdAllocator(store::allocateProducerIdBlock);
        TransactionCoordinator transactions;
        TransactionPeers transactionPeers = null;
        InterBrokerClient peers = null;
        if (member != null) {
            peers = interBrokerClient(s, member);
            started.add("the inter-broker client", peers::close);
            transactionPeers = new TransactionPeers(member, self, peers);
            transactions = new TransactionCoordinator(
                    clusterDir,
                    producerIds,
                    topics,
                    groups,
                    s.transactionConfig(),
                    transactionPeers,
                    member::mayAcknowledge);
            coordinateSlotsWith(member, groups, transactions);
        } else {
            transactions = new TransactionCoordinator(clusterDir, producerIds, topics, groups, s.transactionConfig());
        }
        // Markers in flight fail with the engine's close; their transactions stay prepared and are completed at the
        // next start.
        started.add("the transaction coordinator", transactions::stop);
        // Before any listener: transactions left prepared by a crash are completed before anything is served.
        transactions.start();
        return new Coordinators(groups, shares, producerIds, transactions, transactionPeers, peers);
    }

    /** The broker's coordinators learn from {@code m} which coordinator slots this broker gained or lost. */
    private static void coordinateSlotsWith(ClusterMember m, GroupCoordinator g, TransactionCoordinator txns) {
        g.coordinateWhenTaken(m::mayAcknowledge);
        m.onCoordinatorSlots(new CoordinatorSlots.Listener() {
            @Override
            public void gained(CoordinatorSlots kind, int slot, int epoch) {
                switch (kind) {
                    case GROUP -> g.takeCoordination(slot, epoch);
                    case TRANSACTION -> txns.takeCoordination(slot, epoch);
                }
            }

            @Override
            public void lost(CoordinatorSlots kind, int slot) {
                switch (kind) {
                    case GROUP -> g.giveUpCoordination(slot);
                    case TRANSACTION -> txns.giveUpCoordination(slot);
                }
            }
        });
    }

    /**
     * Requests to the other brokers go to their inter-broker listener, as each registered it, over kafka-clients'
     * client stack with that listener's TLS and SASL (this broker's keystore, truststore and JAAS login).
     */
    private static InterBrokerClient interBrokerClient(Setting s, ClusterMember m) {
        int brokerId = s.config().brokerId();
        LOG.info("broker {}: inter-broker requests go to listener {}", brokerId, s.interBroker());
        org.apache.kafka.common.utils.internals.LogContext log =
                new org.apache.kafka.common.utils.internals.LogContext("[kaas-broker-" + brokerId + " inter-broker] ");
        return new InterBrokerClient(
                brokerId,
                INTER_BROKER_TIMEOUT,
                () -> s.interBroker().newChannelBuilder(s.security(), log),
                new RegisteredPeers(m, s.interBroker().listenerName()));
    }
}
