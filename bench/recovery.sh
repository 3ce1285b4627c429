#!/usr/bin/env bash
# bench/recovery.sh: how long `kaas recover` takes over a 1 GiB active segment with no damage, when the
# recovery checkpoint is gone so the scan reads the whole segment (a crash before the first checkpoint).
# The resync scan that tells damage from a torn tail must not slow a clean recovery: run this with the
# launcher before a change (BENCH_A_LAUNCHER) and after (BENCH_KAAS_LAUNCHER) on the same data dir.
#
#   bench/recovery.sh
#   BENCH_A_LAUNCHER=/path/to/main/bin/kaas bench/recovery.sh     # main's build against this one
#
# Tunables (environment): BENCH_KAAS_LAUNCHER (default bin/kaas), BENCH_A_LAUNCHER (a second launcher,
# timed the same way on the same files), RECOVERY_MIB=1024 (size of the segment), RECOVERY_RUNS=5 (runs
# per command), BENCH_TMP (where the data dir goes; it needs RECOVERY_MIB of free space).
# Each run: the checkpoint is removed, then one of `recover --dry-run`, `recover`, `recover --fast` is
# timed. The segment is in the page cache after the first run (the figure is the scan, not the disk).
# Output: median wall seconds (the whole process, JVM start included), MB/s and median CPU seconds
# (user + system) per launcher and command, with the bytes the run says it scanned, on stdout and in
# bench/results/recovery-<UTC time>/report.txt. The data dir is deleted at the end, whatever happens.
# Exit 0, or 2 when setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
MIB=${RECOVERY_MIB:-1024}
RUNS=${RECOVERY_RUNS:-5}
KAAS_LAUNCHER="$(readlink -f "${BENCH_KAAS_LAUNCHER:-$repo/bin/kaas}")"
A_LAUNCHER="${BENCH_A_LAUNCHER:+$(readlink -f "$BENCH_A_LAUNCHER")}"

# shellcheck source=bench/lib.sh
source "$here/lib.sh"

new_run recovery- recovery
trap 'rm -rf "$work"' EXIT

# The writer runs on this checkout's offline class path (cli/target/lib: kaas-cli.jar and its libraries).
lib="$repo/cli/target/lib"
[[ -f "$lib/offline.classpath" ]] || die "no $lib/offline.classpath: build kaas first (mvn -q -B package -DskipTests)"
cp="$lib/kaas-cli.jar:$(tr ':' '\n' <"$lib/offline.classpath" | sed "s|^lib/|$lib/|" | paste -sd:)"
launchers=("$KAAS_LAUNCHER")
[[ -n "$A_LAUNCHER" ]] && launchers=("$A_LAUNCHER" "$KAAS_LAUNCHER")
for l in "${launchers[@]}"; do [[ -x "$l" ]] || die "$l is not an executable launcher"; done

say "writing a ${MIB} MiB active segment through the engine (one partition, one segment)"
java -cp "$cp" "$here/src/recovery/WriteActiveSegment.java" "$work/data" "$MIB" >"$results/write.out" 2>&1 \
    || die "writing the segment failed; see $results/write.out"
partition="$work/data/recovery/0"
bytes=$(stat -c %s "$partition"/*.log)
say "segment: $bytes bytes; load average $(cut -d' ' -f1-3 /proc/loadavg)"

: >"$results/times.tsv"
for launcher in "${launchers[@]}"; do
    for mode in "--dry-run" "" "--fast"; do
        for ((i = 1; i <= RUNS; i++)); do
            rm -f "$partition/recovery-checkpoint.json"
            # wall, user and system seconds of the whole process (CPU is steadier than wall on a busy machine)
            TIMEFORMAT='%R %U %S'
            # shellcheck disable=SC2086 # mode is one word or none
            { time "$launcher" recover $mode "$partition" >"$results/recover.out" 2>&1; } 2>"$results/time.out" \
                || die "$launcher recover $mode exited $?; see $results/recover.out"
            read -r wall user sys <"$results/time.out"
            # what the run says it read: the figure is a whole-segment scan only if it scanned the segment
            scanned="$(grep -o 'scanned [0-9]* bytes' "$results/recover.out" | head -1 | tr -dc 0-9)"
            printf '%s\t%s\t%s\t%s\t%s\n' "$launcher" "recover${mode:+ $mode}" "$wall" "$(echo "$user + $sys" | bc)" "${scanned:-?}" \
                >>"$results/times.tsv"
        done
        say "$launcher recover $mode: $RUNS runs"
    done
done

python3 - "$results/times.tsv" "$bytes" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY' | tee "$results/report.txt"
import collections, statistics, sys
times, size, load = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runs, cpu, read = collections.defaultdict(list), collections.defaultdict(list), {}
for line in open(times):
    launcher, command, seconds, cpu_seconds, scanned = line.rstrip("\n").split("\t")
    runs[(launcher, command)].append(float(seconds))
    cpu[(launcher, command)].append(float(cpu_seconds))
    read[(launcher, command)] = scanned
print(f"recovery of a {size / 2**20:.0f} MiB active segment, no checkpoint, no damage (load average at the end: {load})")
print(f"{'launcher':<48} {'command':<18} {'median s':>9} {'MB/s':>8} {'median CPU s':>13} {'runs':>5} {'bytes scanned':>14}")
for (launcher, command), s in runs.items():
    m = statistics.median(s)
    c = statistics.median(cpu[(launcher, command)])
    print(f"{launcher[-48:]:<48} {command:<18} {m:>9.2f} {size / 1e6 / m:>8.0f} {c:>13.2f} {len(s):>5} {read[(launcher, command)]:>14}")
PY
