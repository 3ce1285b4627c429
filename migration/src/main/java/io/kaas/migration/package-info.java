/**
 * {@code kaas import}: an Apache Kafka 4.x log dir (its broker stopped) becomes a kaas data dir, Apache's files
 * untouched; {@code kaas export}: the way back, a kaas data dir as an Apache Kafka 4.4 log dir a single-node KRaft
 * broker starts on without formatting.
 *
 * <ul>
 *   <li>{@link io.kaas.migration.ApacheNames}: Apache's names for partitions, segments and checkpoints (both ways);
 *   <li>{@link io.kaas.migration.ApacheLogDir}: what an Apache log dir holds, and whether its broker still runs;
 *   <li>{@link io.kaas.migration.ApacheBatches}: the record batches of one Apache partition, in offset order;
 *   <li>{@link io.kaas.migration.ClusterMetadata}: topics, ids and configs from the KRaft metadata log
 *       ({@code __cluster_metadata-0}, decoded with Apache's {@code MetadataRecordSerde});
 *   <li>{@link io.kaas.migration.CommittedGroupOffsets}: committed offsets from {@code __consumer_offsets}
 *       (Apache's {@code GroupCoordinatorRecordSerde});
 *   <li>{@link io.kaas.migration.TransactionStates}: transactional ids from {@code __transaction_state}
 *       (Apache's {@code TransactionCoordinatorRecordSerde}), and which of them are open;
 *   <li>{@link io.kaas.migration.PartitionImport}: one partition's segments linked or copied, its state derived
 *       by core-storage's recovery scan;
 *   <li>{@link io.kaas.migration.ApacheImport}: the whole run, reported through {@link io.kaas.migration.ImportListener};
 *   <li>{@link io.kaas.migration.ApacheExport}: the way back, with {@link io.kaas.migration.PartitionExport},
 *       {@link io.kaas.migration.KraftBootstrap} (Apache's {@code Formatter}) and
 *       {@link io.kaas.migration.ConsumerOffsetsLog}, reported through {@link io.kaas.migration.ExportListener}.
 * </ul>
 *
 * Depends on core-storage and Apache's own record classes only: never on the broker, the wire or the CLI.
 */
package io.kaas.migration;
