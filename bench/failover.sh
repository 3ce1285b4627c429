#!/usr/bin/env bash
# bench/failover.sh: the figures for several `kaas serve` over one shared directory, coordinated by
# a real etcd (Debian's etcd-server) on loopback. Not part of CI.
#
#   bench/failover.sh
#
# 1. Failover time: three brokers over one directory, a topic of 6 partitions. FailoverProbe picks a
#    partition the victim leads, warms a producer on it, sends the signal, and times the first acks=all
#    record to that partition acknowledged after it (signal -> the new owner acknowledges a produce):
#    kill -9 (the victim is then started again, same id) and SIGSTOP (SIGCONT once measured: the resumed
#    broker finds itself fenced and joins again), FAILOVER_ROUNDS times each, the victim cycling 0,1,2.
# 2. Aggregate durable produce throughput: Apache's ProducerPerformance (acks=all, every record fsynced
#    by kaas's default flush interval of 1) into 6 partitions over one broker, then over three brokers
#    sharing the directory; broker CPU seconds (utime+stime of every broker process) per record beside it.
#
# Tunables (environment):
#   FAILOVER_ROUNDS=3            measurements per signal
#   FAILOVER_TTL=6s              --coordinator-lease-ttl (kaas's default); grace and margin follow from it
#   FAILOVER_RECORDS=300000      records per throughput run (100 bytes each)
#   FAILOVER_TMP=${TMPDIR:-/tmp} where the shared data dir goes (a real disk)
#   BENCH_SKIP_BUILD=1           use the built cli/target/lib/ and bench jar
#   BENCH_PIN=0                  no taskset (default: brokers on BENCH_BROKER_CPUS=1, load on BENCH_LOAD_CPUS=0)
#
# Output: bench/results/failover-<UTC time>/report.txt (and the brokers' logs). Exit 0 when every
# measurement ran, 1 when one failed, 2 when setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
ROUNDS=${FAILOVER_ROUNDS:-3}
TTL=${FAILOVER_TTL:-6s}
RECORDS=${FAILOVER_RECORDS:-300000}
TMP_ROOT=${FAILOVER_TMP:-${TMPDIR:-/tmp}}
KAAS_LAUNCHER=${KAAS_LAUNCHER:-$repo/bin/kaas}
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

new_run failover- kaas-failover
build_bench
kaas_reason=""
build_kaas
[[ -z "$kaas_reason" ]] || die "$kaas_reason"
command -v etcd >/dev/null || die "no etcd on PATH (Debian: apt-get install etcd-server)"

free_port() { # a loopback port nobody listens on
    local p
    while :; do
        p=$(( 20000 + RANDOM % 40000 ))
        port_in_use "127.0.0.1:$p" || { echo "$p"; return; }
    done
}

etcd_pid=""
declare -A pids=() ports=()
cleanup() {
    local id
    for id in "${!pids[@]}"; do
        kill -CONT "${pids[$id]}" 2>/dev/null || true
        kill -KILL "${pids[$id]}" 2>/dev/null || true
    done
    [[ -n "$etcd_pid" ]] && kill -TERM "$etcd_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

start_etcd() {
    local client peer
    client=$(free_port); peer=$(free_port)
    ETCD="127.0.0.1:$client"
    ${PIN_LOAD[@]+"${PIN_LOAD[@]}"} etcd --name bench --data-dir "$work/etcd" \
        --listen-client-urls "http://$ETCD" --advertise-client-urls "http://$ETCD" \
        --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
        --initial-cluster "bench=http://127.0.0.1:$peer" --log-level warn >"$results/etcd.log" 2>&1 &
    etcd_pid=$!
    local i
    for i in $(seq 1 100); do
        port_in_use "$ETCD" && return 0
        sleep 0.1 # etcd's client port opening; no client of ours to ask yet
    done
    die "etcd did not open $ETCD"
}

start_broker() { # id data-dir cluster-id: starts `kaas serve --coordinator` and waits until it answers
    local id=$1 data=$2 cid=$3
    [[ -n "${ports[$id]:-}" ]] || ports[$id]=$(free_port)
    KAAS_JAVA_OPTS="$(broker_jvm "kaas-$id")" ${PIN_BROKER[@]+"${PIN_BROKER[@]}"} "$KAAS_LAUNCHER" serve \
        --listeners "PLAINTEXT://127.0.0.1:${ports[$id]}" --data-dir "$data" --admin-listener none \
        --broker-id "$id" --cluster-id "$cid" --coordinator "etcd://$ETCD" --coordinator-lease-ttl "$TTL" \
        >>"$results/kaas-$id.log" 2>&1 &
    pids[$id]=$!
    await_broker "kaas-$id" "${pids[$id]}" "127.0.0.1:${ports[$id]}" || die "broker $id did not start"
}

bootstrap() {
    local id out=()
    for id in "${!ports[@]}"; do out+=("127.0.0.1:${ports[$id]}"); done
    (IFS=,; echo "${out[*]}")
}

cpu_seconds() { # pids...: utime+stime of the processes, in seconds
    local tck total=0 pid stat
    tck=$(getconf CLK_TCK)
    for pid in "$@"; do
        stat=$(cut -d' ' -f14,15 "/proc/$pid/stat" 2>/dev/null) || continue
        total=$(( total + ${stat% *} + ${stat#* } ))
    done
    echo "scale=2; $total / $tck" | bc
}

report="$results/report.txt"
failed=0
{
    echo "# bench/failover.sh $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# lease TTL $TTL; brokers pinned: ${PIN_BROKER[*]:-no}; load pinned: ${PIN_LOAD[*]:-no}"
} >"$report"

start_etcd
say "etcd on $ETCD"

# ---- 1. failover time
cid=$(new_cluster_id)
for id in 0 1 2; do start_broker "$id" "$work/shared" "$cid"; done
tool create-topic io.kaas.bench.CreateTopics "$(bootstrap)" failover:6 >/dev/null 2>>"$results/create.err" \
    || die "cannot create topic failover (see $results/create.err)"
declare -A times=([KILL]="" [STOP]="")
victim=0
for round in $(seq 1 "$ROUNDS"); do
    for sig in KILL STOP; do
        say "round $round: $sig broker $victim"
        line=$(tool "probe-$sig-$round" io.kaas.bench.FailoverProbe "$(bootstrap)" failover "$victim" "${pids[$victim]}" "$sig" \
            2>>"$results/probe.err" | grep failover_ms || true)
        if [[ -z "$line" ]]; then
            say "probe failed (see $results/probe.err)"; failed=1
        else
            say "$line"
            times[$sig]+="${line#failover_ms=}"$'\n'
        fi
        if [[ $sig == KILL ]]; then
            wait "${pids[$victim]}" 2>/dev/null || true
            start_broker "$victim" "$work/shared" "$cid"
        else
            kill -CONT "${pids[$victim]}"
        fi
        victim=$(( (victim + 1) % 3 ))
    done
done
summarise() { # KILL|STOP label
    local ms
    ms=$(printf '%s' "${times[$1]}" | cut -d' ' -f1 | sort -n | tr '\n' ' ')
    echo "failover after $2: ${ms:-none} ms (sorted, $ROUNDS rounds)"
}
{ summarise KILL "kill -9"; summarise STOP "SIGSTOP"; } | tee -a "$report"
for id in 0 1 2; do kill -CONT "${pids[$id]}" 2>/dev/null || true; stop_pid "${pids[$id]}" "kaas-$id"; done
pids=(); ports=()

# ---- 2. aggregate durable produce throughput, 1 broker vs 3 over one directory
throughput() { # brokers label
    local n=$1 data="$work/thr-$1" cid id out before after secs
    cid=$(new_cluster_id)
    for (( id = 0; id < n; id++ )); do start_broker "$id" "$data" "$cid"; done
    tool "create-thr-$n" io.kaas.bench.CreateTopics "$(bootstrap)" thr:6 >/dev/null 2>>"$results/create.err" \
        || die "cannot create topic thr (see $results/create.err)"
    # every partition led and answering before the clock starts
    tool "warm-$n" org.apache.kafka.tools.ProducerPerformance --topic thr --num-records 6000 --record-size 100 \
        --throughput -1 --producer-props "bootstrap.servers=$(bootstrap)" acks=all >/dev/null 2>&1 || true
    before=$(cpu_seconds "${pids[@]}")
    out=$(tool "perf-$n" org.apache.kafka.tools.ProducerPerformance --topic thr --num-records "$RECORDS" --record-size 100 \
        --throughput -1 --producer-props "bootstrap.servers=$(bootstrap)" acks=all linger.ms=5 2>>"$results/perf.err" | tail -1)
    after=$(cpu_seconds "${pids[@]}")
    secs=$(echo "$after - $before" | bc)
    echo "$2: $out" | tee -a "$report"
    echo "$2: broker CPU ${secs} s for $RECORDS records = $(echo "scale=2; $secs * 1000000 / $RECORDS" | bc) us/record" | tee -a "$report"
    for (( id = 0; id < n; id++ )); do stop_pid "${pids[$id]}" "kaas-$id"; done
    pids=(); ports=()
}
throughput 1 "1 broker "
throughput 3 "3 brokers"
say "report: $report"
exit $failed
