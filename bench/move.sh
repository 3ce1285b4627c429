#!/usr/bin/env bash
# bench/move.sh: moving a partition between log dirs under load (AlterReplicaLogDirs, KIP-113). One kaas
# over two log dirs (pinned to cpu 1, the load to cpu 0, as run.sh pins); one partition filled to
# BENCH_MOVE_BYTES; then an acks=all ProducerPerformance run at a fixed rate without a move (the baseline),
# and the same run with Apache's kafka-reassign-partitions moving the partition to the other dir
# meanwhile (a log_dirs reassignment). Prints the move's time (from --execute until the old copy is
# gone) and each run's throughput and p99, with the load average.
#
#   bench/move.sh      # needs the bench module and kaas built (bench/run.sh builds both)
#
# Tunables: BENCH_MOVE_BYTES (1073741824), MOVE_RATE (2000 records/s of 1 KiB), MOVE_SECONDS (60, each
# run's length), BENCH_TMP (a real disk; default TMPDIR), BENCH_CP (a classpath with Apache's
# kafka-tools instead of the bench module's).
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
BYTES=${BENCH_MOVE_BYTES:-1073741824}
RATE=${MOVE_RATE:-2000}
SECONDS_PER_RUN=${MOVE_SECONDS:-60}
BOOTSTRAP=127.0.0.1:39593
if [[ -n "${BENCH_CP:-}" ]]; then
    CP="$BENCH_CP"
else
    bench_jar="$(ls "$here"/target/kaas-bench-*.jar 2>/dev/null | head -1)"
    [[ -n "$bench_jar" ]] || { echo "build the bench module first (mvn -f bench/pom.xml package)" >&2; exit 2; }
    CP="$here/.apache/lib/*:$bench_jar"
fi
work="$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/kaas-move.XXXXXX")"
d0="$work/d0"
d1="$work/d1"

KAAS_JAVA_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20" \
    taskset -c 1 "$repo/bin/kaas" serve --listeners "PLAINTEXT://$BOOTSTRAP" --log-dirs "$d0,$d1" \
    --admin-listener none >"$work/kaas.log" 2>&1 &
kaas_pid=$!
cleanup() {
    kill -TERM "$kaas_pid" 2>/dev/null || true
    wait "$kaas_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

tools() { taskset -c 0 java -Xmx512m -XX:TieredStopAtLevel=1 -cp "$CP" "$@"; }
for _ in $(seq 1 120); do
    tools org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --list >/dev/null 2>&1 && break
    kill -0 "$kaas_pid" 2>/dev/null || { echo "kaas did not start: $(tail -5 "$work/kaas.log")" >&2; exit 2; }
    sleep 0.5
done
tools org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --topic moving --partitions 1 \
    --config segment.bytes=268435456 >/dev/null
# The fill: acks=1, as fast as it goes.
tools org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$BOOTSTRAP" --topic moving \
    --num-records "$((BYTES / 1024))" --record-size 1024 --throughput -1 --command-property acks=1 \
    --command-property linger.ms=5 >"$work/fill.txt" 2>&1
[[ -d "$d0/moving/0" ]] || { echo "the partition is not in $d0" >&2; exit 2; }

perf() { # the acks=all load of one run, its summary line
    tools org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$BOOTSTRAP" --topic moving \
        --num-records "$((RATE * SECONDS_PER_RUN))" --record-size 1024 --throughput "$RATE" \
        --command-property acks=all 2>&1 | tail -1
}
summary() { # ProducerPerformance's last line: records/s, MB/s, p99
    awk -F', ' '{ for (i = 1; i <= NF; i++) { if ($i ~ /records\/sec/) t = $i; if ($i ~ /99th/) p = $i } } END { print t ", " p }' <<<"$1"
}

echo "kaas over 2 log dirs, 1 partition of $((BYTES >> 20)) MiB, acks=all load $RATE records/s of 1 KiB for ${SECONDS_PER_RUN} s, $(date -u '+%Y-%m-%d %H:%M UTC')"
baseline=$(perf)
echo "without a move: $(summary "$baseline")  (load $(cut -d' ' -f1-3 /proc/loadavg))"

plan="$work/move.json"
printf '{"version":1,"partitions":[{"topic":"moving","partition":0,"replicas":[0],"log_dirs":["%s"]}]}' \
    "$(readlink -f "$d1")" >"$plan"
perf >"$work/during.txt" &
perf_pid=$!
sleep 2 # the load is under way before the move starts
start=$(date +%s.%N)
tools org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "$BOOTSTRAP" --execute \
    --reassignment-json-file "$plan" >"$work/execute.txt" 2>&1
while [[ -d "$d0/moving/0" || ! -d "$d1/moving/0" ]]; do
    kill -0 "$kaas_pid" 2>/dev/null || { echo "kaas died: $(tail -5 "$work/kaas.log")" >&2; exit 1; }
    sleep 0.1
done
end=$(date +%s.%N)
moved_while_loaded=yes
kill -0 "$perf_pid" 2>/dev/null || moved_while_loaded="no (the load ended first: raise MOVE_SECONDS)"
wait "$perf_pid"
during=$(cat "$work/during.txt")
printf 'move time: %.1f s  (%s MiB; during the load: %s)\n' "$(echo "$end - $start" | bc)" "$((BYTES >> 20))" "$moved_while_loaded"
echo "during a move:  $(summary "$during")  (load $(cut -d' ' -f1-3 /proc/loadavg))"
