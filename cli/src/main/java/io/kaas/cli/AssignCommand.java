package io.kaas.cli;

import io.kaas.cluster.Assignment;
import io.kaas.cluster.PartitionPins;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
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
@Command(
        name = "assign",
        mixinStandardHelpOptions = true,
        header =
                "Pin partitions to a broker (moving them there), unpin them, or list the assignment of brokers sharing a directory.",
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
                    + "kafka-reassign-partitions, run against the brokers, makes and cancels the same pins (a target of one broker)."
        },
        exitCodeListHeading = "%nExit Codes:%n",
        exitCodeList = {
            "0:Done: pinned, unpinned or listed.",
            "1:Nothing written: no such partition, or the broker named is not live; or, with --wait, the new owner "
                    + "had not taken every partition over in time (the assignment is written)."
        })
public final class AssignCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = "--coordinator",
            paramLabel = "URI",
            defaultValue = "${env:KAAS_COORDINATOR}",
            description =
                    "The brokers' coordination store, as given to kaas serve: etcd://HOST:PORT[,HOST:PORT...] or k8s://[NAMESPACE][?context=NAME]"
                            + " (env KAAS_COORDINATOR; required).")
    String coordinator;

    @Option(
            names = "--cluster-id",
            paramLabel = "ID",
            defaultValue = "${env:KAAS_CLUSTER_ID}",
            description = "The brokers' --cluster-id (env KAAS_CLUSTER_ID; default kaas serve's).")
    String clusterId;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    static final class Action {
        @Option(
                names = "--broker",
                paramLabel = "ID",
                description = "Move the partitions to this live broker and pin them there.")
        Integer broker;

        @Option(
                names = "--unpin",
                description = "Unpin the partitions: they stay where they are until a rebalance evens the load out.")
        boolean unpin;

        @Option(
                names = "--list",
                description = "Print every partition's owner and pin (only TOPIC's partitions when topics are given).")
        boolean list;
    }

    @Parameters(
            paramLabel = "PARTITION",
            arity = "0..*",
            description = "TOPIC-N, e.g. orders-3 (the number after the last '-'); with --list, topic names.")
    List<String> targets = new ArrayList<>();

    @Option(names = "--wait", description = "With --broker: wait until the broker has taken every partition over.")
    boolean await;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            converter = ServeCommand.DurationConverter.class,
            defaultValue = "60s",
            description = "With --wait: how long to wait (default 60s).")
    Duration timeout;

    @Mixin
    JsonOutputMixin json;

    @Override
    public Integer call() {
        if (coordinator == null || coordinator.isBlank()) {
            throw new ParameterException(
                    spec.commandLine(), "Missing --coordinator (or KAAS_COORDINATOR): the brokers' coordination store");
        }
        // The coordination store's code is reached only from here, in a class of its own: building this
        // command reflects on this class's fields and methods, which name no broker type (bin/kaas gives
        // the broker's jars only to an assign that names a store).
        return new AssignRun(this).run();
    }
}
