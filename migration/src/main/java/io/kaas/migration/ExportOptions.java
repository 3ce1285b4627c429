package io.kaas.migration;

/**
 * How {@link ApacheExport} runs.
 *
 * @param dryRun             read and check everything, write nothing
 * @param copy               copy every segment (never hard-link), e.g. to put the log dir on another disk
 * @param clusterId          the exported cluster's id (Apache's 22-character base64 Uuid); null: a new one
 * @param nodeId             Apache's {@code node.id}: the only broker and controller, every partition's replica
 * @param controllerListener Apache's first {@code controller.listener.names} entry
 * @param controllerEndpoint {@code host:port} of that listener, as the standalone voter set records it (KIP-853)
 * @param offsetsPartitions  Apache's {@code offsets.topic.num.partitions}: groups hash onto this many partitions
 */
public record ExportOptions(
        boolean dryRun,
        boolean copy,
        String clusterId,
        int nodeId,
        String controllerListener,
        String controllerEndpoint,
        int offsetsPartitions) {}
