#!/usr/bin/env bash
# bench/startup.sh: issue 14's start-up targets for the released launcher. Runbooks call `kaas verify`
# or `kaas dump-segment` once per partition, hundreds of times, so the whole process counts. This unpacks
# the release archive into an empty directory (as an operator installs it), fills one partition with
# 2,000 acks=all records through the unpacked `kaas serve`, lets the first offline command record the
# class-data-sharing archive (bin/kaas does that in an unpacked release), and times each command with
# hyperfine, with the archive and without it. Not part of CI.
#
#   bench/startup.sh
#
# Tunables (environment): STARTUP_RUNS=30 (hyperfine runs per command, after 3 warm-ups),
# BENCH_SKIP_BUILD=1 (use the built cli/target/kaas-*.tar.gz and bench jar), BENCH_TMP (work dir).
# Output: a table (median wall time; mean CPU, user+sys, which is steadier on a busy machine) on stdout
# and in bench/results/startup-<UTC time>/report.txt, with hyperfine's JSON. Targets: `kaas --version`
# ≤ 0.15 s and `kaas verify` of a small partition ≤ 0.30 s, median wall time. Exit 0 when both hold,
# 1 when one misses, 2 when setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
RUNS=${STARTUP_RUNS:-30}
KAAS_BOOTSTRAP=127.0.0.1:19392

# shellcheck source=bench/lib.sh
source "$here/lib.sh"

command -v hyperfine >/dev/null || die "hyperfine is not installed (Debian: apt-get install hyperfine)"
new_run startup- startup
trap 'stop_pid "${kaas_pid:-}" kaas; rm -rf "$work"' EXIT

build_bench
if [[ -z "${BENCH_SKIP_BUILD:-}" ]]; then
    say "building the release archive (mvn package -pl cli -am -DskipTests)"
    mvn -B -q -f "$repo/pom.xml" package -DskipTests -pl cli -am >"$results/mvn-kaas.log" 2>&1 \
        || die "mvn package failed; see $results/mvn-kaas.log"
fi
archive="$(ls "$repo"/cli/target/kaas-*.tar.gz 2>/dev/null | head -1)"
[[ -n "$archive" ]] || die "no cli/target/kaas-*.tar.gz; run without BENCH_SKIP_BUILD"
mkdir -p "$work/install"
tar -xzf "$archive" -C "$work/install"
home="$(ls -d "$work"/install/kaas-*)"
KAAS_LAUNCHER="$home/bin/kaas"

say "filling one partition with 2,000 records through the unpacked kaas serve"
KAAS_SERVE_EXTRA=(--admin-listener none)
start_kaas || die "kaas serve did not start; see $results/kaas-server.log"
tool produce org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$KAAS_BOOTSTRAP" --topic startup \
    --num-records 2000 --record-size 100 --throughput -1 --producer-props acks=all \
    >"$results/produce.out" 2>&1 || die "producing failed; see $results/produce.out"
stop_pid "$kaas_pid" kaas; kaas_pid=""
partition="$work/kaas/startup/0"
segment="$(ls "$partition"/*.log | head -1)"

"$KAAS_LAUNCHER" --version >/dev/null
[[ -f "$home/lib/kaas.jsa" ]] || die "the first offline command did not record lib/kaas.jsa"

commands=("$KAAS_LAUNCHER --version" "$KAAS_LAUNCHER verify $partition" "$KAAS_LAUNCHER dump-segment $segment")
say "timing with the archive ($RUNS runs each)"
hyperfine -N -w 3 -r "$RUNS" --export-json "$results/with-cds.json" "${commands[@]}" >"$results/with-cds.txt" 2>&1
mv "$home/lib/kaas.jsa" "$results/kaas.jsa.aside"
say "timing without it"
KAAS_CDS=off hyperfine -N -w 3 -r "$RUNS" --export-json "$results/without-cds.json" "${commands[@]}" \
    >"$results/without-cds.txt" 2>&1
rm -f "$results/kaas.jsa.aside"

load="$(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results/with-cds.json" "$results/without-cds.json" "$load" <<'EOF' | tee "$results/report.txt"
import json, sys
with_cds, without, load = (json.load(open(sys.argv[1]))["results"], json.load(open(sys.argv[2]))["results"], sys.argv[3])
targets = {"--version": 0.15, "verify": 0.30}
print(f"load average during the run: {load}")
print(f"{'command':<14} {'median wall (no CDS -> CDS)':>28} {'mean CPU (no CDS -> CDS)':>26} {'target':>8}")
missed = False
for a, b in zip(without, with_cds):
    name = a["command"].split("/bin/kaas ", 1)[1].split(" ")[0]
    cpu = lambda r: r["user"] + r["system"]
    target = targets.get(name)
    ok = "" if target is None else ("ok" if b["median"] <= target else "MISSED")
    missed |= ok == "MISSED"
    print(f"{name:<14} {a['median']*1000:>12.0f} -> {b['median']*1000:>5.0f} ms {cpu(a)*1000:>12.0f} -> {cpu(b)*1000:>5.0f} ms"
          f" {'' if target is None else f'{target*1000:.0f} ms':>8} {ok}")
sys.exit(1 if missed else 0)
EOF
