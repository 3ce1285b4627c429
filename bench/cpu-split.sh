#!/usr/bin/env bash
# bench/cpu-split.sh: where kaas's CPU goes under durable produce. One kaas pinned to cpu 1, four
# ProducerPerformance JVMs (acks=all, 1 KiB, 8 partitions) pinned to cpu 0; after a warm-up of
# CPU_SPLIT_WARMUP records per producer, CPU_SPLIT_RECORDS per producer are measured: the broker's
# user and system ticks (/proc/<pid>/stat) and a `perf record` of it, reported by DSO (kernel, JVM
# runtime incl. the JIT compilers, JIT-compiled Java) and by symbol. Needs perf and the builds.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
WARMUP=${CPU_SPLIT_WARMUP:-10000}
RECORDS=${CPU_SPLIT_RECORDS:-40000}
B=127.0.0.1:39692
bench_jar="$(ls "$here"/target/kaas-bench-*.jar 2>/dev/null | head -1)"
[[ -n "$bench_jar" ]] || { echo "build the bench module first (mvn -f bench/pom.xml package)" >&2; exit 2; }
CP="$here/.apache/lib/*:$bench_jar"
work="$(mktemp -d "${TMPDIR:-/tmp}/kaas-cpu-split.XXXXXX")"

KAAS_JAVA_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20" taskset -c 1 "$repo/bin/kaas" serve \
    --listeners "PLAINTEXT://$B" --data-dir "$work/data" --admin-listener none >"$work/kaas.log" 2>&1 &
kaas_pid=$!
cleanup() { kill -TERM "$kaas_pid" 2>/dev/null || true; wait "$kaas_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

java -cp "$CP" io.kaas.bench.AwaitBroker "$B" 60 >/dev/null
java -cp "$CP" io.kaas.bench.CreateTopics "$B" durable:8 >/dev/null 2>&1
load() { # records per producer
    local pids=() i
    for i in 1 2 3 4; do
        taskset -c 0 java -Xmx512m -XX:TieredStopAtLevel=1 -cp "$CP" org.apache.kafka.tools.ProducerPerformance \
            --bootstrap-server "$B" --topic durable --num-records "$1" --record-size 1024 --throughput -1 \
            --command-property acks=all >/dev/null 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}"
}
load "$WARMUP"
read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$kaas_pid/stat")
perf record -F 499 -g -p "$kaas_pid" -o "$work/perf.data" >/dev/null 2>&1 &
perf_pid=$!
load "$RECORDS"
kill -INT "$perf_pid" 2>/dev/null || true
wait "$perf_pid" 2>/dev/null || true
read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$kaas_pid/stat")
hz=$(getconf CLK_TCK)
echo "kaas, durable produce, $((4 * RECORDS)) records measured after $((4 * WARMUP)) warm-up, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v hz="$hz" -v n=$((4 * RECORDS)) \
    'BEGIN { printf "broker CPU: user %.2f s, system %.2f s, %.1f us per record\n", u / hz, s / hz, (u + s) / hz / n * 1e6 }'
perf report -i "$work/perf.data" --no-children -g none --sort dso 2>/dev/null | grep -v '^#' | grep -v '^ *$' | head -6
perf report -i "$work/perf.data" --no-children -g none --sort sym 2>/dev/null | grep -v '^#' | grep -v '^ *$' | head -15
