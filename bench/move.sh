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
# run's length), BENCH_TMP (a real disk; default TMPDIR), BENCH_KAAS_LAUNCHER (bin/kaas), BENCH_KEEP=1 (keep
# the data dirs), BENCH_CP (a class path instead of the bench module's: Apache's kafka-tools and the bench
# helpers). The output, the tools' and the broker's logs go to bench/results/move-<UTC time>/.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
BYTES=${BENCH_MOVE_BYTES:-1073741824}
RATE=${MOVE_RATE:-2000}
SECONDS_PER_RUN=${MOVE_SECONDS:-60}
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
KAAS_BOOTSTRAP=127.0.0.1:39593
KAAS_LAUNCHER=${BENCH_KAAS_LAUNCHER:-$repo/bin/kaas}
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

new_run move- kaas-move
kaas_pid=""
trap stop_brokers_and_clean EXIT
trap 'exit 130' INT TERM
require_free_ports "$KAAS_BOOTSTRAP"
bench_classpath
[[ -x "$KAAS_LAUNCHER" ]] || die "no launcher $KAAS_LAUNCHER (mvn package -DskipTests at the root builds bin/kaas)"
d0="$work/d0"
d1="$work/d1"

say "starting kaas serve over $d0 and $d1 on $KAAS_BOOTSTRAP"
KAAS_JAVA_OPTS="$(broker_jvm kaas)" ${PIN_BROKER[@]+"${PIN_BROKER[@]}"} "$KAAS_LAUNCHER" serve \
    --listeners "PLAINTEXT://$KAAS_BOOTSTRAP" --log-dirs "$d0,$d1" --admin-listener none >"$results/kaas-server.log" 2>&1 &
kaas_pid=$!
await_broker kaas "$kaas_pid" "$KAAS_BOOTSTRAP" || die "kaas did not start: $(tail -5 "$results/kaas-server.log")"
tool topics org.apache.kafka.tools.TopicCommand --bootstrap-server "$KAAS_BOOTSTRAP" --create --topic moving --partitions 1 \
    --config segment.bytes=268435456 >/dev/null
# The fill: acks=1, as fast as it goes.
tool fill org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$KAAS_BOOTSTRAP" --topic moving \
    --num-records "$((BYTES / 1024))" --record-size 1024 --throughput -1 --command-property acks=1 \
    --command-property linger.ms=5 >"$results/fill.txt" 2>&1
[[ -d "$d0/moving/0" ]] || die "the partition is not in $d0"
# acks=1 left up to 1 GiB of dirty pages: written back during the baseline, they would slow its fsyncs
# (p99 8 s instead of 0.1 s on the project machine) while the move's run starts on a cleaner disk. Both runs
# start with nothing to write back.
sync

perf() { # name: the acks=all load of one run, its summary line
    tool "perf-$1" org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$KAAS_BOOTSTRAP" --topic moving \
        --num-records "$((RATE * SECONDS_PER_RUN))" --record-size 1024 --throughput "$RATE" \
        --command-property acks=all 2>&1 | tail -1
}
summary() { # ProducerPerformance's last line: records/s, MB/s, p50, p99
    awk -F', ' '{ for (i = 1; i <= NF; i++) { if ($i ~ /records\/sec/) t = $i; if ($i ~ /50th/) m = $i; if ($i ~ /99th/) p = $i } } END { print t ", " m ", " p }' <<<"$1"
}
disk="$(basename "$(df --output=source "$work" | tail -1)")"
disk_mark() { awk -v d="$disk" '$3 == d { print $8, $11 }' /proc/diskstats; }
disk_since() { # the whole disk's writes since a mark, every session's: a busy disk shows in the mean
    local a b
    read -r -a a <<<"$1"
    read -r -a b <<<"$(disk_mark)"
    local n=$((b[0] - a[0])) ms=$((b[1] - a[1]))
    local tenths=$((n > 0 ? ms * 10 / n : 0))
    printf 'disk %s: %d writes, %d.%d ms each' "$disk" "$n" "$((tenths / 10))" "$((tenths % 10))"
}

exec > >(tee "$results/report.txt")
echo "kaas over 2 log dirs, 1 partition of $((BYTES >> 20)) MiB, acks=all load $RATE records/s of 1 KiB for ${SECONDS_PER_RUN} s, $(date -u '+%Y-%m-%d %H:%M UTC')"
mark="$(disk_mark)"
baseline=$(perf baseline)
echo "without a move: $(summary "$baseline")  (load $(cut -d' ' -f1-3 /proc/loadavg); $(disk_since "$mark"))"

plan="$results/move.json"
printf '{"version":1,"partitions":[{"topic":"moving","partition":0,"replicas":[0],"log_dirs":["%s"]}]}' \
    "$(readlink -f "$d1")" >"$plan"
sync
mark="$(disk_mark)"
perf during >"$results/during.txt" &
perf_pid=$!
sleep 2 # the load is under way before the move starts
start=$(date +%s.%N)
tool reassign org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "$KAAS_BOOTSTRAP" --execute \
    --reassignment-json-file "$plan" >"$results/execute.txt" 2>&1
while [[ -d "$d0/moving/0" || ! -d "$d1/moving/0" ]]; do
    kill -0 "$kaas_pid" 2>/dev/null || { say "kaas died: $(tail -5 "$results/kaas-server.log")"; exit 1; }
    sleep 0.1
done
end=$(date +%s.%N)
moved_while_loaded=yes
kill -0 "$perf_pid" 2>/dev/null || moved_while_loaded="no (the load ended first: raise MOVE_SECONDS)"
wait "$perf_pid"
during=$(cat "$results/during.txt")
printf 'move time: %.1f s  (%s MiB; during the load: %s)\n' "$(echo "$end - $start" | bc)" "$((BYTES >> 20))" "$moved_while_loaded"
echo "during a move:  $(summary "$during")  (load $(cut -d' ' -f1-3 /proc/loadavg); $(disk_since "$mark"))"
grep -h "appends waited" "$results/kaas-server.log" | sed 's/.*: moved/kaas: moved/' || true
