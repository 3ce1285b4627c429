package io.kaas.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.ParameterException;

/** What {@code kaas assign} does once it has a coordination store: lists, pins or unpins partitions there. */
final class AssignRun {
    private final AssignCommand command;

    AssignRun(AssignCommand command) {
        this.command = command;
    }

    int run() {
        ClusterConfig cluster;
        try {
            cluster = ClusterConfig.parse(command.coordinator.trim());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.spec.commandLine(), e.getMessage());
        }
        if (!command.action.list && command.targets.isEmpty()) {
            throw new ParameterException(command.spec.commandLine(), "Name at least one partition (TOPIC-N)");
        }
        List<TopicPartition> partitions = new ArrayList<>();
        if (!command.action.list) {
            for (String t : command.targets) {
                partitions.add(PartitionArgument.parse(command.spec, t));
            }
        }
        try (ClusterStore store = cluster.connect(CoordinatorMixin.clusterIdOrDefault(command.clusterId))) {
            if (command.action.list) {
                return list(store);
            }
            return command.action.unpin
                    ? change(store, partitions, null)
                    : change(store, partitions, command.action.broker);
        }
    }

    /** Pins {@code partitions} to {@code broker} (or unpins them when null), by compare-and-set. */
    private int change(ClusterStore store, List<TopicPartition> partitions, Integer broker) {
        PrintWriter out = command.spec.commandLine().getOut();
        PrintWriter err = command.spec.commandLine().getErr();
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
                err.println("broker " + broker + " is not live (live: "
                        + (live.isEmpty() ? "none" : new TreeSet<>(live)) + "); nothing written");
                return ExitCodes.PROBLEMS;
            }
        }
        Assignment before = broker == null ? pins.unpin(partitions) : pins.pin(partitions, broker, topics);
        for (TopicPartition tp : partitions) {
            String was = ownerText(before.owner(tp));
            if (command.json.json()) {
                var row = StateJson.mapper()
                        .createObjectNode()
                        .put("topic", tp.topic())
                        .put("partition", tp.partition())
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
            out.println(
                    broker == null
                            ? tp + ": unpinned (on broker " + was + " until a rebalance moves it)"
                            : tp + ": broker " + was + " -> " + broker + ", pinned");
        }
        if (broker != null && command.await) {
            return awaitTakeOver(pins, partitions, broker);
        }
        if (command.json.json()) {
            out.println(StateJson.mapper()
                    .createObjectNode()
                    .put("type", "summary")
                    .put("partitions", partitions.size())
                    .put("exitCode", ExitCodes.OK));
        }
        return ExitCodes.OK;
    }

    private int awaitTakeOver(PartitionPins pins, List<TopicPartition> partitions, int broker) {
        long deadline = System.nanoTime() + command.timeout.toNanos();
        while (!heldBy(pins, partitions, broker)) {
            if (System.nanoTime() - deadline > 0) {
                command.spec
                        .commandLine()
                        .getErr()
                        .println("broker " + broker + " had not taken every partition over within "
                                + command.timeout.toSeconds() + " s (the assignment is written; it may still)");
                return ExitCodes.PROBLEMS;
            }
            try {
                Thread.sleep(200); // polling the store: a takeover is a close, a release and a claim away
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExitCodes.PROBLEMS;
            }
        }
        command.spec
                .commandLine()
                .getOut()
                .println("broker " + broker + " serves "
                        + (partitions.size() == 1 ? partitions.get(0) : partitions.size() + " partitions"));
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
        PrintWriter out = command.spec.commandLine().getOut();
        ArrayNode rows = StateJson.mapper().createArrayNode();
        for (Map.Entry<String, Integer> t : topics.entrySet()) {
            boolean slots = CoordinatorSlots.of(t.getKey()).isPresent(); // listed only when named: 50 rows each
            if (command.targets.isEmpty() ? slots : !command.targets.contains(t.getKey())) {
                continue;
            }
            for (int p = 0; p < t.getValue(); p++) {
                TopicPartition tp = new TopicPartition(t.getKey(), p);
                OptionalInt owner = a.owner(tp);
                OptionalInt pin = a.pin(tp);
                if (command.json.json()) {
                    var row = rows.addObject().put("topic", tp.topic()).put("partition", p);
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
                } else {
                    out.println(tp + "\t" + ownerText(owner) + "\t" + ownerText(pin));
                }
            }
        }
        if (command.json.json()) {
            out.println(rows);
        }
        return ExitCodes.OK;
    }

    private static String ownerText(OptionalInt broker) {
        return broker.isPresent() ? Integer.toString(broker.getAsInt()) : "-";
    }
}
