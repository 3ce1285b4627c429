#!/usr/bin/env bash
# bench/cat.sh: reading one partition's records as text, `kaas cat` on the data dir against kcat
# (librdkafka) reading the same partition from the running `kaas serve` that wrote it. Both print
# kcat's format `%o %k %s\n`; their outputs must be byte-identical (the script checks, and fails on a
# difference). Unattended, loopback only, a few minutes on 2 cores; not CI.
#
#   bench/cat.sh
#
# The broker is pinned to BENCH_BROKER_CPUS (1) and the readers to BENCH_LOAD_CPUS (0), so kcat's cost is
# its own CPU plus the broker's (both printed), while `kaas cat` needs no broker at all. `kaas cat` only
# reads, so it may run on a live broker's data dir (it reads up to the high watermark checkpoint).
#
# Tunables (environment): BENCH_CAT_RECORDS (2,000,000), BENCH_CAT_RECORD_BYTES (100),
# BENCH_CAT_COMPRESSION (none; or lz4, zstd, ...), BENCH_ROUNDS (3), BENCH_TMP, BENCH_SKIP_BUILD=1,
# BENCH_KEEP=1, BENCH_KAAS_LAUNCHER (bin/kaas).
#
# Output: the table on stdout and in bench/results/cat-<UTC time>/report.txt. Exit status: 0 when every
# run finished with identical output, 1 when one failed or differed, 2 when setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"

RECORDS=${BENCH_CAT_RECORDS:-2000000}
RECORD_BYTES=${BENCH_CAT_RECORD_BYTES:-100}
COMPRESSION=${BENCH_CAT_COMPRESSION:-none}
ROUNDS=${BENCH_ROUNDS:-3}
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
KAAS_BOOTSTRAP=127.0.0.1:29092
KAAS_LAUNCHER="$(readlink -f "${BENCH_KAAS_LAUNCHER:-$repo/bin/kaas}")"
TOPIC=cat-bench
FORMAT='%o %k %s\n'

# shellcheck source=bench/lib.sh
source "$here/lib.sh"
new_run cat- kaas-cat

kaas_pid=""
kaas_reason=""
status=0

cleanup() {
    stop_pid "$kaas_pid" kaas
    if [[ -z "${BENCH_KEEP:-}" ]]; then rm -rf "$work"; else say "data kept in $work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v kcat >/dev/null || die "kcat is not on the path (Debian: apt-get install kcat)"
port_in_use "$KAAS_BOOTSTRAP" && die "$KAAS_BOOTSTRAP is already in use; stop whatever listens there first"

build_bench
build_kaas
[[ -n "$kaas_reason" ]] && die "$kaas_reason"

{
    echo "kaas cat vs kcat, one partition as text, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "host: $(nproc) cores, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg) at start; kcat $(kcat -V 2>&1 | head -1)"
    echo "data: $RECORDS records of $RECORD_BYTES B (compression $COMPRESSION) in one partition; format '$FORMAT'; $ROUNDS rounds each"
} >"$results/meta.txt"
cat "$results/meta.txt" >&2

start_kaas || die "kaas serve did not start; see $results/kaas-server.log"
tool kaas-create-topics io.kaas.bench.CreateTopics "$KAAS_BOOTSTRAP" "$TOPIC:1" >"$results/kaas-topics.out" 2>&1 \
    || die "creating the topic failed"
say "writing $RECORDS records"
tool producer org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$KAAS_BOOTSTRAP" --topic "$TOPIC" \
    --num-records "$RECORDS" --record-size "$RECORD_BYTES" --throughput -1 \
    --command-property acks=1 --command-property linger.ms=5 --command-property batch.size=262144 \
    --command-property compression.type="$COMPRESSION" >"$results/producer.out" 2>&1 || die "producing failed; see $results/producer.out"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

run() { # reader tag: one full read of the partition to a file; appends "wall user+sys broker" to $results/reader.times
    local reader=$1 tag=$2 out="$results/$1.$2" b0 rc=0
    b0="$(cpu_ticks "$kaas_pid")"
    if [[ $reader == kcat ]]; then
        ${PIN_LOAD[@]+"${PIN_LOAD[@]}"} /usr/bin/time -f '%e %U %S' -o "$out.time" kcat -C -q -b "$KAAS_BOOTSTRAP" -t "$TOPIC" -p 0 \
            -o beginning -e -X isolation.level=read_uncommitted -f "$FORMAT" >"$out.txt" 2>"$out.err" || rc=$?
    else
        ${PIN_LOAD[@]+"${PIN_LOAD[@]}"} /usr/bin/time -f '%e %U %S' -o "$out.time" "$KAAS_LAUNCHER" cat "$TOPIC-0" \
            --data-dir "$work/kaas" --no-progress -f "$FORMAT" >"$out.txt" 2>"$out.err" || rc=$?
    fi
    local broker
    broker="$(awk -v t0="$b0" -v t1="$(cpu_ticks "$kaas_pid")" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (t1 - t0) / hz }')"
    if (( rc != 0 )); then
        say "ERROR $reader ($tag): exit $rc; see $out.err"
        status=1
        return 1
    fi
    local lines
    lines="$(wc -l <"$out.txt")"
    (( lines == RECORDS )) || { say "ERROR $reader ($tag): $lines lines, expected $RECORDS"; status=1; }
    sha256sum <"$out.txt" | cut -d' ' -f1 >"$out.sha"
    rm -f "$out.txt"
    read -r wall user sys <"$out.time"
    echo "$reader $wall $user $sys $broker" >>"$results/reader.times"
    say "  $reader $tag: ${wall}s wall, ${user}s user + ${sys}s system, broker ${broker}s CPU"
}

say "reading, warm-up"
run kcat w || true
run kaas w || true
for round in $(seq 1 "$ROUNDS"); do
    say "round $round"
    run kcat "r$round" || true
    run kaas "r$round" || true
done
if [[ "$(cat "$results"/*.sha | sort -u | wc -l)" != 1 ]]; then
    say "ERROR the readers' outputs differ (see $results/*.sha)"
    status=1
fi

{
    cat "$results/meta.txt"
    echo
    printf '%-8s %12s %10s %16s %16s\n' reader records/s "wall s" "reader CPU s" "broker CPU s"
    awk -v n="$RECORDS" -v rounds="$ROUNDS" '
        NR > 2 { w[$1] += $2; c[$1] += $3 + $4; b[$1] += $5; k[$1]++ }   # the first two lines are the warm-up
        END {
            for (r in w) { rate[r] = n / (w[r] / k[r]); printf "%-8s %12.0f %10.2f %16.2f %16.2f\n", r, rate[r], w[r] / k[r], c[r] / k[r], b[r] / k[r] }
            if (rate["kcat"] > 0 && rate["kaas"] > 0) printf "kaas cat / kcat records/s: %.2fx\n", rate["kaas"] / rate["kcat"]
        }' "$results/reader.times"
    echo "outputs identical: $([[ "$(cat "$results"/*.sha | sort -u | wc -l)" == 1 ]] && echo yes || echo NO)"
} >"$results/report.txt"
echo
cat "$results/report.txt"
echo
echo "raw outputs and broker logs: $results"
exit $status
