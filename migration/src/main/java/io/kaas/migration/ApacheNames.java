package io.kaas.migration;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.utils.Utils;

/**
 * How Apache Kafka names things in a log dir, for both directions (import reads these names, export writes them):
 * partition directories {@code <topic>-<n>}, segments named by their base offset in 20 digits, the log dir's
 * checkpoint files, and the {@code __consumer_offsets} partition a group's records live in.
 */
public final class ApacheNames {
    public static final String CONSUMER_OFFSETS = "__consumer_offsets";
    public static final String TRANSACTION_STATE = "__transaction_state";
    public static final String CLUSTER_METADATA = "__cluster_metadata";
    /** Apache's {@code offsets.topic.num.partitions} default: groups hash onto this many partitions. */
    public static final int DEFAULT_OFFSETS_PARTITIONS = 50;

    public static final String LOG_START_CHECKPOINT = "log-start-offset-checkpoint";
    public static final String RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
    public static final String HIGH_WATERMARK_CHECKPOINT = "replication-offset-checkpoint";
    public static final String META_PROPERTIES = "meta.properties";

    private static final Pattern PARTITION_DIR = Pattern.compile("(.+)-([0-9]+)");
    private static final Pattern SEGMENT = Pattern.compile("[0-9]{20}\\.log");

    /** A parsed {@code <topic>-<n>} directory name. */
    public record PartitionDirName(String topic, int partition) {}

    private ApacheNames() {}

    /** {@code <topic>-<n>}. */
    public static String partitionDir(String topic, int partition) {
        return topic + "-" + partition;
    }

    /**
     * The topic and partition a directory name stands for; empty for one that is not a partition, or one Apache is
     * deleting or moving ({@code -delete}, {@code -future}, {@code -stray}).
     */
    public static Optional<PartitionDirName> parsePartitionDir(String name) {
        if (name.endsWith("-delete") || name.endsWith("-future") || name.endsWith("-stray") || name.startsWith(".")) {
            return Optional.empty();
        }
        Matcher m = PARTITION_DIR.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new PartitionDirName(m.group(1), Integer.parseInt(m.group(2))));
    }

    /** {@code <base:020d>.log}. */
    public static String segmentFile(long baseOffset) {
        return String.format("%020d.log", baseOffset);
    }

    public static boolean isSegmentFile(String name) {
        return SEGMENT.matcher(name).matches();
    }

    /** The base offset an Apache segment's name carries. */
    public static long baseOffsetOf(Path segment) {
        return Long.parseLong(segment.getFileName().toString().substring(0, 20));
    }

    /** The {@code __consumer_offsets} partition holding {@code groupId}'s records (Apache's partitionFor). */
    public static int offsetsPartitionFor(String groupId, int partitions) {
        return Utils.abs(groupId.hashCode()) % partitions;
    }
}
