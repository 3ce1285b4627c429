#!/usr/bin/env bash
# bench/cleaner.sh: the cleaner's figures, kaas against Apache Kafka 4.4's own cleaner on the same
# log. One log of CLEANER_MIB MiB (default 1024) of 1 KiB records over CLEANER_KEYS keys (default 10000),
# uncompressed batches of 16, CLEANER_SEGMENT_MIB MiB segments (default 128), written once
# (io.kaas.bench.CleanerLogWriter); each round copies it fresh and runs one full pass of each cleaner
# in its own JVM with the same heap flags, pinned to the same core:
#   Apache: io.kaas.bench.ApacheCleanerRun (Cleaner.doClean on a UnifiedLog, the broker's defaults:
#           128 MiB dedupe buffer, 512 KiB I/O buffers); the log's load is not timed, the pass is.
#   kaas:   bin/kaas compact --json (the broker's cleaner, offline, its defaults); its durationMs times
#           the pass only, not the recovery scan before it.
# Prints MB/s of dirty log (closed segments' bytes / pass seconds), peak heap (the largest heap
# before a GC, from -Xlog:gc, and after the pass) and the process's CPU seconds (user + sys of the
# whole JVM, load and start-up included, from /usr/bin/time), median of CLEANER_ROUNDS (default 3),
# the ratios: throughput kaas/Apache and heap Apache/kaas (>= 1.0 means kaas is at least as good),
# and the load average before and after and the filesystem the runs used.
# Not part of CI. Exit 0 ok, 1 a run failed, 2 setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
MIB=${CLEANER_MIB:-1024}
KEYS=${CLEANER_KEYS:-10000}
SEGMENT_MIB=${CLEANER_SEGMENT_MIB:-128}
ROUNDS=${CLEANER_ROUNDS:-3}
CORE=${CLEANER_CORE:-1}
KAAS_LAUNCHER="$(readlink -f "${BENCH_KAAS_LAUNCHER:-$repo/bin/kaas}")"
CLEANER_JVM=(-Xms256m -Xmx2g -XX:+UseG1GC)

# shellcheck source=bench/lib.sh
source "$here/lib.sh"
new_run cleaner- kaas-cleaner
kaas_reason=""
trap 'if [[ -z "${BENCH_KEEP:-}" ]]; then rm -rf "$work"; else say "data kept in $work"; fi' EXIT
trap 'exit 130' INT TERM

build_bench
build_kaas
[[ -n "$kaas_reason" ]] && die "$kaas_reason"

say "writing $MIB MiB of 1 KiB records over $KEYS keys ($SEGMENT_MIB MiB segments)"
java "${TOOL_JVM[@]}" -cp "$CP" io.kaas.bench.CleanerLogWriter "$work/source" "$MIB" "$KEYS" "$SEGMENT_MIB" >"$results/writer.out"
dirty_bytes=$(find "$work/source" -name '*.log' | sort | head -n -1 | xargs stat -c %s | paste -sd+ | bc)
say "dirty log: $dirty_bytes bytes in $(($(find "$work/source" -name '*.log' | wc -l) - 1)) closed segments"

peak_heap_mib() { # gc log: the largest "before" heap of any GC line, in MiB
    grep -oE '[0-9]+M->[0-9]+M' "$1" | sed 's/M->.*//' | sort -n | tail -1
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
fs=$(df -T "$work" | awk 'NR==2 {print $2 " on " $1}')
status=0
for round in $(seq 1 "$ROUNDS"); do
    for system in apache kaas; do
        rm -rf "$work/run"
        if [[ $system == apache ]]; then
            mkdir -p "$work/run" && cp -r "$work/source" "$work/run/t-0"
            if ! /usr/bin/time -f '%U %S' -o "$results/$system-$round.time" taskset -c "$CORE" java "${CLEANER_JVM[@]}" "-Xlog:gc:file=$results/$system-$round.gc" "$LOG_CONFIG" \
                    -Dbench.log.file="$results/$system-$round.log" -cp "$CP" io.kaas.bench.ApacheCleanerRun \
                    "$work/run/t-0" "$((SEGMENT_MIB << 20))" >"$results/$system-$round.out" 2>&1; then
                say "Apache's cleaner failed; see $results/$system-$round.out"; status=1; continue
            fi
            ms=$(grep -oE 'ms=[0-9]+' "$results/$system-$round.out" | cut -d= -f2)
        else
            mkdir -p "$work/run/t" && cp -r "$work/source" "$work/run/t/0"
            printf '{"cleanupPolicy":"compact","segmentBytes":%d}\n' "$((SEGMENT_MIB << 20))" >"$work/run/t/.config.json"
            if ! KAAS_JAVA_OPTS="${CLEANER_JVM[*]} -Xlog:gc:file=$results/$system-$round.gc" /usr/bin/time -f '%U %S' -o "$results/$system-$round.time" taskset -c "$CORE" \
                    "$KAAS_LAUNCHER" compact --json --no-progress "$work/run/t/0" >"$results/$system-$round.out" 2>"$results/$system-$round.err"; then
                say "kaas compact failed; see $results/$system-$round.err"; status=1; continue
            fi
            ms=$(grep -oE '"durationMs":[0-9]+' "$results/$system-$round.out" | cut -d: -f2)
        fi
        heap=$(peak_heap_mib "$results/$system-$round.gc")
        cpu=$(tail -1 "$results/$system-$round.time" | awk '{printf "%.2f", $1 + $2}')
        echo "$system $round $ms ${heap:-0} $cpu" >>"$results/runs.txt"
        say "$system round $round: pass $ms ms, peak heap ${heap:-?} MiB, process CPU $cpu s"
    done
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
a_ms=$(awk '$1=="apache" {print $3}' "$results/runs.txt" | median)
k_ms=$(awk '$1=="kaas" {print $3}' "$results/runs.txt" | median)
a_heap=$(awk '$1=="apache" {print $4}' "$results/runs.txt" | median)
k_heap=$(awk '$1=="kaas" {print $4}' "$results/runs.txt" | median)
a_cpu=$(awk '$1=="apache" {print $5}' "$results/runs.txt" | median)
k_cpu=$(awk '$1=="kaas" {print $5}' "$results/runs.txt" | median)
{
    printf 'cleaner, %s MiB of 1 KiB records, %s keys, %s MiB segments, median of %s rounds, core %s\n' "$MIB" "$KEYS" "$SEGMENT_MIB" "$ROUNDS" "$CORE"
    printf '%-8s %10s %12s %14s %18s\n' system 'pass ms' 'MB/s dirty' 'peak heap MiB' 'process CPU s'
    awk -v b="$dirty_bytes" -v a="$a_ms" -v k="$k_ms" -v ah="$a_heap" -v kh="$k_heap" -v ac="$a_cpu" -v kc="$k_cpu" 'BEGIN {
        printf "%-8s %10d %12.1f %14d %18.2f\n", "apache", a, b / 1e6 / (a / 1000), ah, ac
        printf "%-8s %10d %12.1f %14d %18.2f\n", "kaas", k, b / 1e6 / (k / 1000), kh, kc
        printf "ratio kaas/Apache: throughput %.2f, heap (Apache/kaas) %.2f\n", a / k, ah / kh }'
    printf 'load average before %s, after %s; %s\n' "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" "$fs"
} | tee "$results/table.txt"
exit $status
