package io.kaas.cli;

import io.kaas.cluster.Assignment;
import io.kaas.cluster.BrokerRegistration;
import io.kaas.cluster.ClusterConfig;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.CoordinatorSlots;
import io.kaas.cluster.PartitionPins;
import io.kaas.storage.ExitCodes;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.StateJson;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kaas assign}: with brokers sharing a directory, an operator pins a partition to a broker (moving it
 * there), unpins it, or lists who owns what — what {@code kafka-reassign-partitions} does for Apache's
 * replicas. It writes the assignment in the coordination store by compare-and-set, as the controller does,
 * so neither loses the other's write; the controller then keeps pinned partitions where they are pinned
 * ({@link Assignment#rebalanced}), and the brokers hand the partition over as for any move: the old owner
 * closes and releases it, the new one claims the next epoch. The pin is written by {@link PartitionPins}, as the
 * brokers write it for Apache's AlterPartitionReassignments.
 */
@Command(name = "assign", mixinStandardHelpOptions = true,
        header = "Pin partitions to a broker (moving them there), unpin them, or list the assignment of brokers sharing a directory.",
        description = {
            "With brokers sharing one data directory (kaas serve --coordinator), the controller assigns partitions "
                    + "evenly over the live brokers. 'kaas assign TOPIC-N... --broker ID' moves those partitions to "
                    + "broker ID and pins them there: rebalances keep them on it while it is live (if it goes, they "
                    + "are served elsewhere meanwhile and come back when it returns), and even out the other "
                    + "partitions around them. '--unpin' lets the controller place them again. '--list' prints "
                    + "TOPIC-N<TAB>OWNER<TAB>PIN per partition ('-' for none).",
            "Coordinators move the same way: __consumer_offsets-N is the coordinator of the consumer groups of slot N "
                    + "(abs(groupId.hashCode()) %% 50, as Apache), __transaction_state-N that of the transactional ids of "
                    + "slot N; '--list __consumer_offsets __transaction_state' lists them.",
            "The change is a compare-and-set on the assignment in the coordination store; producers and consumers "
                    + "follow the move through Metadata (NOT_LEADER_OR_FOLLOWER sends them there). Apache's "
                    + "kafka-reassign-partitions, run against the brokers, makes and cancels the same pins (a target of one broker)."},
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {"0:Done: pinned, unpinned or listed.",
            "1:Nothing written: no such partition, or the broker named is not live; or, with --wait, the new owner "
                    + "had not taken every partition over in time (the assignment is written)."})
public final class AssignCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--coordinator", paramLabel = "URI", defaultValue = "${env:KAAS_COORDINATOR}",
            description = "The brokers' coordination store, as given to kaas serve: etcd://HOST:PORT[,HOST:PORT...] or k8s://[NAMESPACE][?context=NAME]"
                    + " (env KAAS_COORDINATOR; required).")
    String coordinator;

    @Option(names = "--cluster-id", paramLabel = "ID", defaultValue = "${env:KAAS_CLUSTER_ID}",
            description = "The brokers' --cluster-id (env KAAS_CLUSTER_ID; default kaas serve's).")
    String clusterId;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    static final class Action {
        @Option(names = "--broker", paramLabel = "ID", description = "Move the partitions to this live broker and pin them there.")
        Integer broker;

        @Option(names = "--unpin", description = "Unpin the partitions: they stay where they are until a rebalance evens the load out.")
        boolean unpin;

        @Option(names = "--list", description = "Print every partition's owner and pin (only TOPIC's partitions when topics are given).")
        boolean list;
    }

    @Parameters(paramLabel = "PARTITION", arity = "0..*",
            description = "TOPIC-N, e.g. orders-3 (the number after the last '-'); with --list, topic names.")
    List<String> targets = new ArrayList<>();

    @Option(names = "--wait", description = "With --broker: wait until the broker has taken every partition over.")
    boolean await;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = ServeCommand.DurationConverter.class, defaultValue = "60s",
            description = "With --wait: how long to wait (default 60s).")
    Duration timeout;

    @Mixin
    JsonOutputMixin json;

    @Override
    public Integer call() {
        if (coordinator == null || coordinator.isBlank()) {
            throw new ParameterException(spec.commandLine(), "Missing --coordinator (or KAAS_COORDINATOR): the brokers' coordination store");
        }
        ClusterConfig cluster;
        try {
            cluster = ClusterConfig.parse(coordinator.trim());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!action.list && targets.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "Name at least one partition (TOPIC-N)");
        }
        List<TopicPartition> partitions = new ArrayList<>();
        if (!action.list) {
            for (String t : targets) {
                partitions.add(parsePartition(t));
            }
        }
        try (ClusterStore store = cluster.connect(CoordinatorMixin.clusterIdOrDefault(clusterId))) {
            if (action.list) {
                return list(store);
            }
            return action.unpin ? change(store, partitions, null) : change(store, partitions, action.broker);
        }
    }

    private TopicPartition parsePartition(String s) {
        int dash = s.lastIndexOf('-');
        if (dash > 0 && dash < s.length() - 1 && s.substring(dash + 1).chars().allMatch(Character::isDigit)) {
            try {
                return new TopicPartition(s.substring(0, dash), Integer.parseInt(s.substring(dash + 1)));
            } catch (NumberFormatException e) {
                // too long: reported below
            }
        }
        throw new ParameterException(spec.commandLine(), "Not a partition (TOPIC-N, e.g. orders-3): '" + s + "'");
    }

    /** Pins {@code partitions} to {@code broker} (or unpins them when null), by compare-and-set. */
    private int change(ClusterStore store, List<TopicPartition> partitions, Integer broker) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PartitionPins pins = new PartitionPins(store);
        Map<String, Integer> topics = pins.topics();
        for (TopicPartition tp : partitions) {
            String missing = PartitionPins.missing(tp, topics);
            if (missing != null) {
                err.println(tp + ": no such partition (" + missing + "); nothing written");
                return ExitCodes.PROBLEMS;
            }
        }
        if (broker != null) {
            Set<Integer> live = pins.liveBrokers();
            if (!live.contains(broker)) {
                err.println("broker " + broker + " is not live (live: " + (live.isEmpty() ? "none" : new TreeSet<>(live)) + "); nothing written");
                return ExitCodes.PROBLEMS;
            }
        }
        Assignment before = broker == null ? pins.unpin(partitions) : pins.pin(partitions, broker, topics);
        for (TopicPartition tp : partitions) {
            String was = ownerText(before.owner(tp));
            if (json.json()) {
                var row = StateJson.mapper().createObjectNode().put("topic", tp.topic()).put("partition", tp.partition())
                        .put("status", broker == null ? "unpinned" : "pinned");
                if (before.owner(tp).isPresent()) {
                    row.put("was", before.owner(tp).getAsInt());
                } else {
                    row.putNull("was");
                }
                if (broker != null) {
                    row.put("pin", broker);
                }
                out.println(row);
                continue;
            }
            out.println(broker == null
                    ? tp + ": unpinned (on broker " + was + " until a rebalance moves it)"
                    : tp + ": broker " + was + " -> " + broker + ", pinned");
        }
        if (broker != null && await) {
            return awaitTakeOver(pins, partitions, broker);
        }
        if (json.json()) {
            out.println(StateJson.mapper().createObjectNode().put("type", "summary").put("partitions", partitions.size())
                    .put("exitCode", ExitCodes.OK));
        }
        return ExitCodes.OK;
    }

    private int awaitTakeOver(PartitionPins pins, List<TopicPartition> partitions, int broker) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!heldBy(pins, partitions, broker)) {
            if (System.nanoTime() - deadline > 0) {
                spec.commandLine().getErr().println("broker " + broker + " had not taken every partition over within "
                        + timeout.toSeconds() + " s (the assignment is written; it may still)");
                return ExitCodes.PROBLEMS;
            }
            try {
                Thread.sleep(200); // polling the store: a takeover is a close, a release and a claim away
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExitCodes.PROBLEMS;
            }
        }
        if (json.json()) {
            spec.commandLine().getOut().println(StateJson.mapper().createObjectNode().put("type", "summary").put("broker", broker)
                    .put("serving", partitions.size()).put("exitCode", ExitCodes.OK));
        } else {
            spec.commandLine().getOut().println("broker " + broker + " serves " + (partitions.size() == 1 ? partitions.get(0) : partitions.size() + " partitions"));
        }
        return ExitCodes.OK;
    }

    private static boolean heldBy(PartitionPins pins, List<TopicPartition> partitions, int broker) {
        try {
            return pins.heldBy(partitions, broker);
        } catch (CoordinationException e) {
            return false; // a blip: ask again until the deadline
        }
    }

    private int list(ClusterStore store) {
        Map<String, Integer> topics = new PartitionPins(store).topics();
        Assignment a = store.assignment().value();
        Map<Integer, BrokerRegistration> live = store.brokers();
        PrintWriter out = spec.commandLine().getOut();
        int rows = 0;
        for (Map.Entry<String, Integer> t : topics.entrySet()) {
            boolean slots = CoordinatorSlots.of(t.getKey()).isPresent(); // listed only when named: 50 rows each
            if (targets.isEmpty() ? slots : !targets.contains(t.getKey())) {
                continue;
            }
            for (int p = 0; p < t.getValue(); p++) {
                TopicPartition tp = new TopicPartition(t.getKey(), p);
                OptionalInt owner = a.owner(tp);
                OptionalInt pin = a.pin(tp);
                if (json.json()) {
                    // JSON Lines: one object per partition, then the summary
                    var row = StateJson.mapper().createObjectNode().put("topic", tp.topic()).put("partition", p);
                    if (owner.isPresent()) {
                        row.put("owner", owner.getAsInt()).put("ownerLive", live.containsKey(owner.getAsInt()));
                    } else {
                        row.putNull("owner");
                    }
                    if (pin.isPresent()) {
                        row.put("pin", pin.getAsInt());
                    } else {
                        row.putNull("pin");
                    }
                    out.println(row);
                    rows++;
                } else {
                    out.println(tp + "\t" + ownerText(owner) + "\t" + ownerText(pin));
                }
            }
        }
        if (json.json()) {
            out.println(StateJson.mapper().createObjectNode().put("type", "summary").put("partitions", rows));
        }
        return ExitCodes.OK;
    }

    private static String ownerText(OptionalInt broker) {
        return broker.isPresent() ? Integer.toString(broker.getAsInt()) : "-";
    }
}
