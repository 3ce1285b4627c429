package io.kaas.cluster;

import io.kaas.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * Who leads what, as Metadata answers it, from the live brokers and the assignment as the last reconcile read
 * them. Written by {@code kaas-cluster} ({@link #update}), read by request handlers: the view is one immutable
 * value behind a volatile, so a reader sees brokers and assignment of the same read.
 */
final class MetadataView implements PartitionLeaders {
    /** The live brokers and the assignment, as last read. */
    private record View(Map<Integer, BrokerRegistration> brokers, Assignment assignment) {}

    /** This broker's registration, or null before it joined. */
    private final Supplier<BrokerRegistration> self;

    private volatile View view = new View(Map.of(), Assignment.EMPTY);

    MetadataView(Supplier<BrokerRegistration> self) {
        this.self = self;
    }

    void update(Map<Integer, BrokerRegistration> live, Assignment assignment) {
        view = new View(live, assignment);
    }

    /**
     * As Apache answers Metadata: each other broker's endpoint of the listener {@code me} is (the one the client
     * came in on), or, where that broker registered no such listener, its first advertised one.
     */
    @Override
    public List<BrokerNode> brokers(BrokerNode me) {
        List<BrokerNode> out = new ArrayList<>();
        out.add(me);
        String listener = listenerOf(me);
        for (BrokerRegistration b : view.brokers().values()) {
            if (b.brokerId() != me.nodeId()) {
                Optional<Endpoint> e = listener == null ? Optional.empty() : b.endpoint(listener);
                out.add(e.map(x -> new BrokerNode(b.brokerId(), x.host(), x.port(), me.clusterId()))
                        .orElseGet(() -> new BrokerNode(b.brokerId(), b.host(), b.port(), me.clusterId())));
            }
        }
        return out;
    }

    /** The name of this broker's listener advertised at {@code me}'s address, or null (not joined yet). */
    private String listenerOf(BrokerNode me) {
        BrokerRegistration s = self.get();
        if (s == null) {
            return null;
        }
        for (String text : s.endpoints()) {
            Endpoint e = Endpoint.parse(text);
            if (e.host().equals(me.host()) && e.port() == me.port()) {
                return e.listenerName();
            }
        }
        return null;
    }

    /** A live broker's registration as last read, or empty when it is not live. */
    Optional<BrokerRegistration> registration(int brokerId) {
        return Optional.ofNullable(view.brokers().get(brokerId));
    }

    @Override
    public OptionalInt leader(TopicPartition tp, BrokerNode me) {
        View v = view;
        OptionalInt owner = v.assignment().owner(tp);
        if (owner.isEmpty() || (owner.getAsInt() != me.nodeId() && !v.brokers().containsKey(owner.getAsInt()))) {
            return OptionalInt.empty();
        }
        return owner;
    }

    @Override
    public int groupCoordinator(int slot, BrokerNode me) {
        return leader(CoordinatorSlots.GROUP.slot(slot), me).orElse(-1);
    }

    @Override
    public int transactionCoordinator(int slot, BrokerNode me) {
        return leader(CoordinatorSlots.TRANSACTION.slot(slot), me).orElse(-1);
    }

    @Override
    public int controllerId(BrokerNode me) {
        return view.brokers().keySet().stream()
                .mapToInt(Integer::intValue)
                .min()
                .orElse(me.nodeId());
    }
}
