#!/usr/bin/env bash
# Runs the core-storage JMH benchmark (acks=-1 appends, flush interval 1) with 1, 4 and 16 threads.
# Usage: core-storage/bench.sh [extra JMH args]   (from the repo root; builds test classes first)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -pl core-storage -am test-compile -DskipTests
cp_file=$(mktemp)
mvn -q -B -pl core-storage dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >/dev/null
cp="core-storage/target/test-classes:core-storage/target/classes:$(cat "$cp_file")"
rm -f "$cp_file"
for t in 1 4 16; do
  java -cp "$cp" org.openjdk.jmh.Main 'io.kaas.storage.bench.AppendBenchmark' -t "$t" -rf text -rff "/tmp/kaas-append-bench-t$t.txt" "$@" \
    | grep -E '^(Benchmark|AppendBenchmark|fsyncs/append)' || true
done
