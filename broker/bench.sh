#!/usr/bin/env bash
# Runs the broker's JMH benchmarks: what recording metrics costs a Produce request
# (io.kaas.broker.metrics.MetricsRecordingBenchmark), with 1 and 2 threads.
# Usage: broker/bench.sh [extra JMH args]   (from anywhere; builds test classes first)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -pl broker -am test-compile -DskipTests
cp_file=$(mktemp)
mvn -q -B -pl broker dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >/dev/null
# This checkout's modules first: the resolved classpath may name older installed snapshots.
cp="broker/target/test-classes:broker/target/classes:protocol/target/classes:cluster/target/classes:core-storage/target/classes:$(cat "$cp_file")"
rm -f "$cp_file"
for t in 1 2; do
  java -cp "$cp" org.openjdk.jmh.Main 'io.kaas.broker.metrics.MetricsRecordingBenchmark' -t "$t" "$@" \
    | grep -E '^(Benchmark|MetricsRecordingBenchmark)' || true
done
