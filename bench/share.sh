#!/usr/bin/env bash
# bench/share.sh: share-group (KIP-932) consumption, kaas vs Apache Kafka 4.4.0 side by side: one topic
# of 4 partitions filled once (1 KiB records), then per run a new share group of 2 KafkaShareConsumers
# in explicit acknowledgement mode, each accepting every record and committing with commitSync after
# each poll, until every record is accepted. Unattended, loopback only; not CI.
#
#   bench/share.sh
#
# The brokers are pinned to one core and the load JVM to the other (taskset); each broker's CPU time per
# record (user + system, all threads, from /proc/<pid>/stat around each measured run, the consumers'
# join included) is printed next to its records/s. "records/s" counts from the consumers' start (join,
# assignment and share-partition initialisation included: seconds on Apache), "after join" from the
# first record delivered. Durability differs by design: kaas fsyncs the share
# state (group commit) before it answers an acknowledgement; Apache writes it to __share_group_state,
# which, as shipped, is not fsynced per write. Each row: one warm-up run per system, then A B A B ...
#
# Tunables (environment): BENCH_ROUNDS (3), BENCH_SHARE_RECORDS (records in the topic; every run, the
# warm-up too, consumes all of them with a group of its own; 50000), BENCH_TMP, BENCH_SKIP_BUILD=1, BENCH_KEEP=1, BENCH_KAAS_LAUNCHER (bin/kaas), BENCH_BROKER_CPU (0),
# BENCH_LOAD_CPU (1), BENCH_RUN_TIMEOUT (600 s per run).
#
# Output: the table on stdout and in bench/results/share-<UTC time>/report.txt, next to every run's output
# and both brokers' logs. Exit status: 0 when every run finished, 1 when one failed, 2 when setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"

ROUNDS=${BENCH_ROUNDS:-3}
RECORDS=${BENCH_SHARE_RECORDS:-50000}
BROKER_CPU=${BENCH_BROKER_CPU:-0}
LOAD_CPU=${BENCH_LOAD_CPU:-1}
RUN_TIMEOUT=${BENCH_RUN_TIMEOUT:-600}
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
RECORD_BYTES=1024
PARTITIONS=4
CONSUMERS=2
TOPIC=share-bench

APACHE_BOOTSTRAP=127.0.0.1:19092
APACHE_CONTROLLER=127.0.0.1:19093
KAAS_BOOTSTRAP=127.0.0.1:29092
KAAS_LAUNCHER="$(readlink -f "${BENCH_KAAS_LAUNCHER:-$repo/bin/kaas}")"

# shellcheck source=bench/lib.sh
source "$here/lib.sh"
new_run share- kaas-share

apache_pid=""
kaas_pid=""
kaas_reason=""
status=0

cleanup() {
    stop_pid "$kaas_pid" kaas
    stop_pid "$apache_pid" "Apache Kafka"
    if [[ -z "${BENCH_KEEP:-}" ]]; then rm -rf "$work"; else say "data kept in $work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for port in $APACHE_BOOTSTRAP $APACHE_CONTROLLER $KAAS_BOOTSTRAP; do
    port_in_use "$port" && die "$port is already in use; stop whatever listens there first"
done
fstype="$(stat -f -c %T "$work")"
[[ "$fstype" == tmpfs || "$fstype" == ramfs ]] && die "$work is on $fstype: fsync would be free. Set BENCH_TMP to a disk"

build_bench
build_kaas
[[ -n "$kaas_reason" ]] && die "$kaas_reason"

{
    echo "share-group consumption, kaas vs Apache Kafka 4.4.0, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "host: $(nproc) cores, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg) at start; brokers on CPU $BROKER_CPU, load on CPU $LOAD_CPU"
    echo "load: $RECORDS x $RECORD_BYTES B over $PARTITIONS partitions; per run a new share group of $CONSUMERS KafkaShareConsumers, explicit acks (ACCEPT, commitSync per poll); $ROUNDS rounds after a warm-up"
} >"$results/meta.txt"
cat "$results/meta.txt" >&2

pin() { # pid name: every thread of the broker onto BROKER_CPU (threads it starts later inherit it)
    taskset -a -cp "$BROKER_CPU" "$1" >"$results/taskset-$2.out" 2>&1 || die "taskset failed for $2"
}

load() { # logname args...: the SharePerf helper on LOAD_CPU
    local logname=$1; shift
    timeout "$RUN_TIMEOUT" taskset -c "$LOAD_CPU" java "${TOOL_JVM[@]}" "$LOG_CONFIG" -Dbench.log.file="$results/$logname.log" \
        -cp "$CP" io.kaas.bench.SharePerf "$@"
}

start_apache
pin "$apache_pid" apache
tool apache-create-topics io.kaas.bench.CreateTopics "$APACHE_BOOTSTRAP" "$TOPIC:$PARTITIONS" \
    >"$results/apache-topics.out" 2>&1 || die "creating the Apache topic failed"
load apache-produce produce "$APACHE_BOOTSTRAP" "$TOPIC" "$PARTITIONS" "$RECORDS" "$RECORD_BYTES" \
    >"$results/apache-produce.out" 2>&1 || die "filling the Apache topic failed"
start_kaas || die "kaas serve did not start; see $results/kaas-server.log"
pin "$kaas_pid" kaas
tool kaas-create-topics io.kaas.bench.CreateTopics "$KAAS_BOOTSTRAP" "$TOPIC:$PARTITIONS" \
    >"$results/kaas-topics.out" 2>&1 || die "creating the kaas topic failed"
load kaas-produce produce "$KAAS_BOOTSTRAP" "$TOPIC" "$PARTITIONS" "$RECORDS" "$RECORD_BYTES" \
    >"$results/kaas-produce.out" 2>&1 || die "filling the kaas topic failed"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

run() { # system tag
    local system=$1 tag=$2 bootstrap pid t0 rc=0
    if [[ $system == apache ]]; then bootstrap=$APACHE_BOOTSTRAP; pid=$apache_pid; else bootstrap=$KAAS_BOOTSTRAP; pid=$kaas_pid; fi
    local out="$results/share.$system.$tag"
    t0="$(cpu_ticks "$pid")"
    load "share.$system.$tag" consume "$bootstrap" "$TOPIC" "bench-$tag" "$RECORDS" "$CONSUMERS" >"$out.out" 2>"$out.err" || rc=$?
    awk -v t0="$t0" -v t1="$(cpu_ticks "$pid")" -v hz="$(getconf CLK_TCK)" -v n="$RECORDS" \
        'BEGIN { printf "%.3f\n", (t1 - t0) / hz * 1e6 / n }' >"$out.cpu"
    if (( rc != 0 )) || ! grep -q '^share-perf: .* accepted' "$out.out"; then
        say "ERROR share on $system ($tag): exit $rc; see $out.err"
        status=1
        return 1
    fi
    say "  $system $tag: $(sed 's/^share-perf: //' "$out.out"), broker $(cat "$out.cpu") CPU us/record"
}

say "warm-up"
run apache w || true
run kaas w || true
for round in $(seq 1 "$ROUNDS"); do
    say "round $round"
    run apache "r$round" || true
    run kaas "r$round" || true
done

summary() { # system: "records/s records/s-after-join cpu", means over the measured rounds
    local files=("$results/share.$1".r*.out)
    awk '/^share-perf: .* accepted/ { match($0, /s: [0-9]+ records\/s/); r += substr($0, RSTART + 3, RLENGTH - 13)
                                      match($0, /first record: [0-9]+/); f += substr($0, RSTART + 14, RLENGTH - 14); n++ }
         END { if (n) printf "%.0f %.0f", r / n, f / n; else printf "- -" }' "${files[@]}"
    awk '{ s += $1; n++ } END { if (n) printf " %.1f\n", s / n; else print " -" }' "$results/share.$1".r*.cpu
}

{
    cat "$results/meta.txt"
    echo
    printf '%-7s %10s %22s %18s\n' system records/s "records/s after join" "broker cpu us/rec"
    declare -A rate=() after=() cpu=()
    for s in apache kaas; do
        read -r rps first c < <(summary "$s")
        rate[$s]=$rps
        after[$s]=$first
        cpu[$s]=$c
        printf '%-7s %10s %22s %18s\n' "$s" "$rps" "$first" "$c"
    done
    ratio() { # label kaas apache
        awk -v l="$1" -v k="$2" -v a="$3" 'BEGIN { if (a > 0 && k > 0) printf "kaas/Apache %s: %.2fx\n", l, k / a; else printf "kaas/Apache %s: n/a\n", l }'
    }
    ratio records/s "${rate[kaas]}" "${rate[apache]}"
    ratio "records/s after join" "${after[kaas]}" "${after[apache]}"
    ratio "broker CPU per record" "${cpu[kaas]}" "${cpu[apache]}"
} >"$results/report.txt"
echo
cat "$results/report.txt"
echo
echo "raw outputs and broker logs: $results"
exit $status
