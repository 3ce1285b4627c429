package io.kaas.broker.metrics;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.protocol.ConnectionLimits;
import io.kaas.protocol.KafkaServer;
import io.kaas.storage.PartitionLog;
import io.kaas.storage.PartitionState;
import io.kaas.storage.StorageEngine;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.GroupOffsetsFile;
import io.kaas.storage.io.StorageException;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Gauges computed at scrape time from lock-free snapshots only: {@link PartitionLog#state()} and
 * {@link PartitionLog#failure()} (volatile reads), the engine's refused partitions (a concurrent map), the offset store's immutable per-group maps, the
 * server's connection counters. Nothing here takes a partition or group lock, so a partition whose
 * fsync hangs cannot stall a scrape. Only partitions already open are read: a scrape never opens one.
 */
final class StateGauges {
    private StateGauges() {}

    static void register(
            PrometheusRegistry registry,
            StorageEngine engine,
            GroupCoordinator groups,
            KafkaServer server,
            boolean perPartition) {
        GaugeWithCallback.builder()
                .name("kaas_partitions")
                .help(
                        "Open partitions by health: ok, stalled (fsync slower than the watchdog) or failed (fsync/write error)")
                .labelNames("state")
                .callback(cb -> {
                    long ok = 0;
                    long stalled = 0;
                    long failed = 0;
                    for (PartitionLog p : engine.openPartitions()) {
                        Optional<StorageException> f = p.failure();
                        if (f.isEmpty()) {
                            ok++;
                        } else if (f.get().kind() == StorageException.Kind.STALLED) {
                            stalled++;
                        } else {
                            failed++;
                        }
                    }
                    cb.call(ok, "ok");
                    cb.call(stalled, "stalled");
                    cb.call(failed, "failed");
                })
                .register(registry);
        // The refusal names file and byte (FILE:BYTE: what), as the log and /readyz do: an alert can say where to look.
        GaugeWithCallback.builder()
                .name("kaas_partition_refused")
                .help("1 for each partition the broker refused to open (damage: offline until `kaas recover`),"
                        + " with why: the damaged file and byte")
                .labelNames("topic", "partition", "damage")
                .callback(cb -> engine.refusedPartitions()
                        .forEach((tp, why) -> cb.call(1, tp.topic(), Integer.toString(tp.partition()), why)))
                .register(registry);
        GaugeWithCallback.builder()
                .name("kaas_log_dir_offline")
                .help(
                        "1 for a log dir that is offline (a disk failure: its partitions refused until a restart), else 0")
                .labelNames("dir")
                .callback(cb -> {
                    var offline = engine.offlineLogDirs();
                    engine.logDirs().forEach(d -> cb.call(offline.containsKey(d) ? 1 : 0, d.name()));
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("kaas_connections")
                .help("Open client connections per listener")
                .labelNames("listener")
                .callback(cb -> server.connectionsByListener().forEach((name, n) -> cb.call(n, name)))
                .register(registry);
        // Both limits are always reported, 0 until one is hit, so an alert on the rate needs no absent() case.
        CounterWithCallback.builder()
                .name("kaas_connections_rejected")
                .help("Connections closed as soon as they were accepted, by the limit they hit"
                        + " (max.connections.per.ip, with its overrides, or max.connections)")
                .labelNames("reason")
                .callback(cb -> {
                    Map<String, Long> rejected = server.rejectedConnections();
                    for (String reason : new String[] {ConnectionLimits.MAX_PER_IP, ConnectionLimits.MAX_CONNECTIONS}) {
                        cb.call(rejected.getOrDefault(reason, 0L), reason);
                    }
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("kaas_network_direct_memory_bytes")
                .help("Direct memory the network layer's buffer allocator holds (request and response buffers,"
                        + " pooled chunks)")
                .callback(cb -> cb.call(server.directMemoryBytes()))
                .register(registry);
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            GaugeWithCallback.builder()
                    .name("kaas_open_files")
                    .help("File descriptors the broker process holds (segments, indexes, sockets)")
                    .callback(cb -> cb.call(unix.getOpenFileDescriptorCount()))
                    .register(registry);
        }
        if (perPartition) {
            registerPerPartition(registry, engine, groups);
        }
    }

    private static void registerPerPartition(
            PrometheusRegistry registry, StorageEngine engine, GroupCoordinator groups) {
        GaugeWithCallback.builder()
                .name("kaas_partition_high_watermark")
                .help("Next offset to be assigned (the log end offset; there are no replicas)")
                .labelNames("topic", "partition")
                .callback(cb -> engine.openPartitions()
                        .forEach(p -> cb.call(
                                p.state().highWatermark(), p.id().topic(), Integer.toString(p.id().partition()))))
                .register(registry);
        GaugeWithCallback.builder()
                .name("kaas_partition_log_start_offset")
                .help("First offset a consumer can fetch")
                .labelNames("topic", "partition")
                .callback(cb -> engine.openPartitions()
                        .forEach(p -> cb.call(
                                p.state().logStartOffset(), p.id().topic(), Integer.toString(p.id().partition()))))
                .register(registry);
        GaugeWithCallback.builder()
                .name("kaas_partition_size_bytes")
                .help("Bytes in the partition's segments")
                .labelNames("topic", "partition")
                .callback(cb -> engine.openPartitions()
                        .forEach(p ->
                                cb.call(p.state().sizeInBytes(), p.id().topic(), Integer.toString(p.id().partition()))))
                .register(registry);
        GaugeWithCallback.builder()
                .name("kaas_consumer_group_lag")
                .help("High watermark minus the group's committed offset, for open partitions")
                .labelNames("group", "topic", "partition")
                .callback(cb -> {
                    Collection<PartitionLog> open = engine.openPartitions();
                    Map<TopicPartition, PartitionState> states = new HashMap<>(open.size() * 2);
                    open.forEach(p -> states.put(p.id(), p.state()));
                    for (String group : groups.groupsWithOffsets()) {
                        for (GroupOffsetsFile.Committed c :
                                groups.committed(group).values()) {
                            PartitionState s = states.get(new TopicPartition(c.topic(), c.partition()));
                            if (s != null && c.offset() >= 0) {
                                cb.call(
                                        Math.max(0, s.highWatermark() - c.offset()),
                                        group,
                                        c.topic(),
                                        Integer.toString(c.partition()));
                            }
                        }
                    }
                })
                .register(registry);
    }
}
