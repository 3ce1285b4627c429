#!/usr/bin/env bash
# bench/cpu-split.sh: where kaas's CPU goes under one load. One kaas pinned to cpu 1, the load pinned
# to cpu 0; after a warm-up of CPU_SPLIT_WARMUP records per process, CPU_SPLIT_RECORDS per process are
# measured: the broker's user and system ticks (/proc/<pid>/stat) and a `perf record` of it, reported by
# DSO (kernel, JVM runtime incl. the JIT compilers, JIT-compiled Java) and by symbol. JIT-compiled
# frames get their Java names from the map the JVM writes at exit (-XX:+DumpPerfMapAtExit).
# CPU_SPLIT_SCENARIO picks the load (run.sh's flags for each):
#   durable   (default) four ProducerPerformance, acks=all, 1 KiB, 8 partitions
#   pagecache the same with acks=1 on a topic with flush.messages=1000000000
#   latency-rate one producer, acks=all, linger.ms=0, 100 B records at 500 records/s, 1 partition
#             (one record per request, one fsync each: the per-request cost)
#   consume   one ConsumerPerformance reading CPU_SPLIT_RECORDS + CPU_SPLIT_WARMUP records of 1 KiB
#             (8 partitions, written first with acks=1), after a warm-up read of the same topic
# CPU_SPLIT_LAUNCHER: the `kaas` launcher to profile (default bin/kaas of this checkout);
# CPU_SPLIT_PERF=0 skips perf (the split alone). Needs perf and the builds.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
WARMUP=${CPU_SPLIT_WARMUP:-10000}
RECORDS=${CPU_SPLIT_RECORDS:-40000}
SCENARIO=${CPU_SPLIT_SCENARIO:-durable}
LAUNCHER=${CPU_SPLIT_LAUNCHER:-$repo/bin/kaas}
B=127.0.0.1:39692
bench_jar="$(ls "$here"/target/kaas-bench-*.jar 2>/dev/null | head -1)"
[[ -n "$bench_jar" ]] || { echo "build the bench module first (mvn -f bench/pom.xml package)" >&2; exit 2; }
CP="$here/.apache/lib/*:$bench_jar"
work="$(mktemp -d "${TMPDIR:-/tmp}/kaas-cpu-split.XXXXXX")"

KAAS_JAVA_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" \
    taskset -c 1 "$LAUNCHER" serve --listeners "PLAINTEXT://$B" --data-dir "$work/data" --admin-listener none >"$work/kaas.log" 2>&1 &
kaas_pid=$!
cleanup() { kill -TERM "$kaas_pid" 2>/dev/null || true; wait "$kaas_pid" 2>/dev/null || true; rm -rf "$work" "/tmp/perf-$kaas_pid.map"; }
trap cleanup EXIT

java -cp "$CP" io.kaas.bench.AwaitBroker "$B" 60 >/dev/null
TOOL=(taskset -c 0 java -Xmx512m -XX:TieredStopAtLevel=1 -cp "$CP")
produce() { # topic acks records-per-producer producers [size throughput extra-properties...]
    local pids=() i
    for ((i = 0; i < $4; i++)); do
        "${TOOL[@]}" org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$B" --topic "$1" --num-records "$3" \
            --record-size "${5:-1024}" --throughput "${6:--1}" --command-property acks="$2" "${@:7}" >/dev/null 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}"
}
consume() { # records group
    "${TOOL[@]}" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B" --topic consume --messages "$1" \
        --group "$2" --timeout 60000 >/dev/null 2>&1
}
case "$SCENARIO" in
    durable) java -cp "$CP" io.kaas.bench.CreateTopics "$B" durable:8 >/dev/null 2>&1
             procs=4; load() { produce durable all "$1" 4; } ;;
    pagecache) java -cp "$CP" io.kaas.bench.CreateTopics "$B" pagecache:8:flush.messages=1000000000 >/dev/null 2>&1
             procs=4; load() { produce pagecache 1 "$1" 4; } ;;
    latency-rate) java -cp "$CP" io.kaas.bench.CreateTopics "$B" latency:1 >/dev/null 2>&1
             procs=1; load() { produce latency all "$1" 1 100 500 linger.ms=0; } ;;
    consume) java -cp "$CP" io.kaas.bench.CreateTopics "$B" consume:8:flush.messages=1000000000 >/dev/null 2>&1
             produce consume 1 "$((WARMUP + RECORDS))" 1
             procs=1; round=0; load() { round=$((round + 1)); consume "$1" "cpu-split-$round"; } ;;
    *) echo "CPU_SPLIT_SCENARIO: durable, pagecache, latency-rate or consume" >&2; exit 2 ;;
esac
load "$WARMUP"
[[ "$SCENARIO" == consume ]] && load "$WARMUP"
read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$kaas_pid/stat")
if [[ "${CPU_SPLIT_PERF:-1}" != 0 ]]; then
    perf record -F 499 -g -p "$kaas_pid" -o "$work/perf.data" >/dev/null 2>&1 &
    perf_pid=$!
fi
load "$RECORDS"
[[ -n "${perf_pid:-}" ]] && { kill -INT "$perf_pid" 2>/dev/null || true; wait "$perf_pid" 2>/dev/null || true; }
read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$kaas_pid/stat")
hz=$(getconf CLK_TCK)
echo "kaas ($LAUNCHER), $SCENARIO, $((procs * RECORDS)) records measured after $((procs * WARMUP)) warm-up, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v hz="$hz" -v n=$((procs * RECORDS)) \
    'BEGIN { printf "broker CPU: user %.2f s, system %.2f s, %.1f us per record\n", u / hz, s / hz, (u + s) / hz / n * 1e6 }'
[[ -n "${perf_pid:-}" ]] || exit 0
# The JVM writes /tmp/perf-<pid>.map as it exits: stop it first so perf can name the JIT-compiled frames.
kill -TERM "$kaas_pid" 2>/dev/null || true; wait "$kaas_pid" 2>/dev/null || true
# CPU_SPLIT_KEEP=FILE keeps the recording (and FILE.map, the JIT symbols) for `perf report -i FILE`.
if [[ -n "${CPU_SPLIT_KEEP:-}" ]]; then
    cp "$work/perf.data" "$CPU_SPLIT_KEEP"; cp "/tmp/perf-$kaas_pid.map" "$CPU_SPLIT_KEEP.map" 2>/dev/null || true
fi
set +o pipefail # head closes the pipe early
perf report -i "$work/perf.data" --no-children -g none --sort dso 2>/dev/null | grep -v '^#' | grep -v '^ *$' | head -6
perf report -i "$work/perf.data" --no-children -g none --sort comm 2>/dev/null | grep -v '^#' | grep -v '^ *$' | head -12
perf report -i "$work/perf.data" --no-children -g none --sort sym 2>/dev/null | grep -v '^#' | grep -v '^ *$' | head -${CPU_SPLIT_SYMBOLS:-15}
