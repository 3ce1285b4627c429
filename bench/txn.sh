#!/usr/bin/env bash
# bench/txn.sh: transactional throughput, kaas vs Apache Kafka 4.4.0 side by side:
# one transactional producer, transactions of 100 records of 1 KiB over a topic of 8
# partitions, acks=all, commit after each. Unattended, loopback only, a few minutes on 2 cores; not CI.
#
#   bench/txn.sh
#
# The brokers are pinned to core 0 and the load JVM to core 1 (taskset), so neither steals the other's
# CPU; each broker's CPU time per record (user + system, all threads, from /proc/<pid>/stat around each
# measured run) is printed next to its throughput. Rows:
#   durable       Apache topic flush.messages=1 (fsync before acknowledging, as kaas) vs kaas's default
#   apache-cache  Apache's default topic (no count-based fsync: markers and data in the page cache) vs
#                 kaas's default, the comparison a user running Apache as shipped makes
# Each row: one warm-up run per system, then A B A B ... (BENCH_ROUNDS, default 3).
#
# Tunables (environment): BENCH_ROUNDS (3), BENCH_TXN_TRANSACTIONS (transactions per measured run, 300),
# BENCH_TXN_WARMUP (100), BENCH_TMP, BENCH_SKIP_BUILD=1, BENCH_KEEP=1, BENCH_KAAS_LAUNCHER (bin/kaas),
# BENCH_BROKER_CPU (0), BENCH_LOAD_CPU (1), BENCH_RUN_TIMEOUT (300 s per run).
#
# Output: the table on stdout and in bench/results/txn-<UTC time>/report.txt, next to every run's output
# and both brokers' logs. Exit status: 0 when every run finished, 1 when one failed, 2 when setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"

ROUNDS=${BENCH_ROUNDS:-3}
TRANSACTIONS=${BENCH_TXN_TRANSACTIONS:-300}
WARMUP=${BENCH_TXN_WARMUP:-100}
BROKER_CPU=${BENCH_BROKER_CPU:-0}
LOAD_CPU=${BENCH_LOAD_CPU:-1}
RUN_TIMEOUT=${BENCH_RUN_TIMEOUT:-300}
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
PER_TXN=100
RECORD_BYTES=1024
PARTITIONS=8

APACHE_BOOTSTRAP=127.0.0.1:19092
APACHE_CONTROLLER=127.0.0.1:19093
KAAS_BOOTSTRAP=127.0.0.1:29092
KAAS_LAUNCHER="$(readlink -f "${BENCH_KAAS_LAUNCHER:-$repo/bin/kaas}")"

# shellcheck source=bench/lib.sh
source "$here/lib.sh"
new_run txn- kaas-txn

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
    echo "transactional throughput, kaas vs Apache Kafka 4.4.0, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "host: $(nproc) cores, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg) at start; brokers on CPU $BROKER_CPU, load on CPU $LOAD_CPU"
    echo "load: 1 producer, transactions of $PER_TXN x $RECORD_BYTES B over $PARTITIONS partitions, acks=all; $TRANSACTIONS transactions per run, $ROUNDS rounds after a warm-up of $WARMUP"
} >"$results/meta.txt"
cat "$results/meta.txt" >&2

pin() { # pid name: every thread of the broker onto BROKER_CPU (threads it starts later inherit it)
    taskset -a -cp "$BROKER_CPU" "$1" >"$results/taskset-$2.out" 2>&1 || die "taskset failed for $2"
}

start_apache
pin "$apache_pid" apache
tool apache-create-topics io.kaas.bench.CreateTopics "$APACHE_BOOTSTRAP" "txn-durable:$PARTITIONS:flush.messages=1" \
    "txn-cache:$PARTITIONS" >"$results/apache-topics.out" 2>&1 || die "creating Apache topics failed"
start_kaas || die "kaas serve did not start; see $results/kaas-server.log"
pin "$kaas_pid" kaas
tool kaas-create-topics io.kaas.bench.CreateTopics "$KAAS_BOOTSTRAP" "txn-durable:$PARTITIONS" \
    >"$results/kaas-topics.out" 2>&1 || die "creating kaas topics failed"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

run() { # row system topic transactions tag
    local row=$1 system=$2 topic=$3 n=$4 tag=$5 bootstrap pid t0 rc=0
    if [[ $system == apache ]]; then bootstrap=$APACHE_BOOTSTRAP; pid=$apache_pid; else bootstrap=$KAAS_BOOTSTRAP; pid=$kaas_pid; fi
    local out="$results/$row.$system.$tag"
    t0="$(cpu_ticks "$pid")"
    timeout "$RUN_TIMEOUT" taskset -c "$LOAD_CPU" java "${TOOL_JVM[@]}" "$LOG_CONFIG" -Dbench.log.file="$out.log" -cp "$CP" \
        io.kaas.bench.TransactionalPerf "$bootstrap" "$topic" "$PARTITIONS" "$n" "$PER_TXN" "$RECORD_BYTES" \
        >"$out.out" 2>"$out.err" || rc=$?
    awk -v t0="$t0" -v t1="$(cpu_ticks "$pid")" -v hz="$(getconf CLK_TCK)" -v n="$((n * PER_TXN))" \
        'BEGIN { printf "%.3f\n", (t1 - t0) / hz * 1e6 / n }' >"$out.cpu"
    if (( rc != 0 )) || ! grep -q '^txn-perf:' "$out.out"; then
        say "ERROR $row on $system ($tag): exit $rc; see $out.err"
        status=1
        return 1
    fi
    say "  $row $system $tag: $(sed 's/^txn-perf: //' "$out.out"), broker $(cat "$out.cpu") CPU us/record"
}

row() { # row apache-topic kaas-topic
    local name=$1 apache_topic=$2 kaas_topic=$3 round
    say "row $name: warm-up"
    run "$name" apache "$apache_topic" "$WARMUP" w || true
    run "$name" kaas "$kaas_topic" "$WARMUP" w || true
    for round in $(seq 1 "$ROUNDS"); do
        say "row $name: round $round"
        run "$name" apache "$apache_topic" "$TRANSACTIONS" "r$round" || true
        run "$name" kaas "$kaas_topic" "$TRANSACTIONS" "r$round" || true
    done
}

row durable txn-durable txn-durable
row apache-cache txn-cache txn-durable

# The table: per row and system, the mean over the measured rounds.
summary() { # row system: "records/s txn/s p50 p99 cpu" means
    local files=("$results/$1.$2".r*.out)
    awk '/^txn-perf:/ { for (i = 1; i <= NF; i++) { if ($i == "records/s,") r += $(i-1); if ($i == "txn/s,") t += $(i-1);
                                                       if ($i == "p50") p50 += $(i+1); if ($i == "p99") p99 += $(i+1) } n++ }
         END { if (n) printf "%.0f %.1f %.1f %.1f", r / n, t / n, p50 / n, p99 / n; else printf "- - - -" }' "${files[@]}"
    awk '{ s += $1; n++ } END { if (n) printf " %.1f\n", s / n; else print " -" }' "$results/$1.$2".r*.cpu
}

{
    cat "$results/meta.txt"
    echo
    printf '%-14s %-7s %10s %8s %14s %14s %14s\n' row system records/s txn/s "commit p50 ms" "commit p99 ms" "cpu us/rec"
    for r in durable apache-cache; do
        declare -A rate=()
        for s in apache kaas; do
            read -r rps tps p50 p99 cpu < <(summary "$r" "$s")
            rate[$s]=$rps
            printf '%-14s %-7s %10s %8s %14s %14s %14s\n' "$r" "$s" "$rps" "$tps" "$p50" "$p99" "$cpu"
        done
        awk -v k="${rate[kaas]}" -v a="${rate[apache]}" -v r="$r" \
            'BEGIN { if (a > 0 && k > 0) printf "%-14s kaas/Apache records/s: %.2fx\n", r, k / a; else printf "%-14s kaas/Apache: n/a\n", r }'
    done
} >"$results/report.txt"
echo
cat "$results/report.txt"
echo
echo "raw outputs and broker logs: $results"
exit $status
