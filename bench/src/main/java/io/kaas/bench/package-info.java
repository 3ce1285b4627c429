/**
 * The client side of the benchmarks under bench/: load probes, summaries of Apache's perf tools, and the report
 * that turns a results directory into the README's table.
 */
package io.kaas.bench;
