/**
 * Offline views of what a partition holds, for {@code kaas ls} and {@code kaas cat}: its offsets, sizes and times
 * from state files and batch headers alone ({@link PartitionSummary}), and its records in offset order, decoded
 * with kafka-clients' record classes and printed as kcat prints them ({@link RecordReader}, {@link KcatFormat}).
 * Nothing here opens a file for writing.
 */
package io.kaas.inspect.data;
