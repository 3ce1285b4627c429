/**
 * The data-dir layout, in one place: what each directory and file under a data dir is called and how
 * to find it, for the engine, the broker and the offline tools alike.
 *
 * <ul>
 *   <li>{@link io.kaas.storage.layout.TopicDir}: {@code <data>/<topic>/<n>/}, topics being deleted;
 *   <li>{@link io.kaas.storage.layout.ClusterDir}: {@code <data>/__cluster/} and what the broker keeps in it;
 *   <li>{@link io.kaas.storage.layout.TopicName}: the one topic-name rule;
 *   <li>{@link io.kaas.storage.layout.OwnerLock}: {@code <partition>/.lock};
 *   <li>{@link io.kaas.storage.layout.LogDirs}, {@link io.kaas.storage.layout.LogDir},
 *       {@link io.kaas.storage.layout.PoolContents}, {@link io.kaas.storage.layout.PlacementRule}: several data dirs
 *       as one pool ({@code log.dirs}), what each holds, where a new partition goes;
 *   <li>{@link io.kaas.storage.layout.PartitionFinder}, {@link io.kaas.storage.layout.PartitionSegments},
 *       {@link io.kaas.storage.layout.SegmentFile}, {@link io.kaas.storage.layout.Targets}: a command's PATH
 *       to partition dirs (kaas or Apache layout) and their segments.
 * </ul>
 *
 * Segment file names themselves ({@code {epoch:08x}-{base:020d}.log/.index}, Apache's unprefixed ones)
 * are {@link io.kaas.storage.segment.SegmentName}, which the segment code and the recovery scan use
 * directly; the state files' names are the {@code FILE_NAME} of their records in
 * {@code io.kaas.storage.format}.
 */
package io.kaas.storage.layout;
