#!/usr/bin/env bash
# bench/startup.sh: how long the released launcher takes to start, whole process, side by side with a
# bare `java -version` on the same machine at the same moment (the ratio is steadier than the
# milliseconds on a shared machine). Runbooks call `kaas verify` or `kaas dump-segment` once per
# partition, hundreds of times, so the whole process counts. This unpacks the release archive into an
# empty directory (as an operator installs it), fills one partition with 2,000 acks=all records of 100
# bytes through the unpacked `kaas serve` and kcat, lets the first offline command record the
# class-data-sharing archive (bin/kaas does that in an unpacked release), then runs each command in
# turn, round-robin, and reports the median wall time of each. Not part of CI.
#
#   bench/startup.sh
#
# Tunables (environment): STARTUP_RUNS=20 (runs per command, after 3 warm-ups), BENCH_SKIP_BUILD=1 (use
# the built cli/target/kaas-*.tar.gz), KAAS_ARCHIVE=PATH (time another build's release archive, e.g.
# main's), STARTUP_BEFORE_ARCHIVE=PATH (also time that build's `--version` and `verify`, in the same
# round-robin, as "before:" rows: a before/after that a busy machine hits alike), BENCH_TMP (work dir).
# Needs python3 and kcat.
# Output: a table (median wall time, mean CPU user+sys, both as ratios to `java -version`; the kaas commands with the
# CDS archive lib/kaas.jsa, and two without it, KAAS_CDS=off) on stdout and in bench/results/startup-<UTC time>/report.txt. Goals: `kaas --version`
# within 3x `java -version` and `kaas verify` of the small partition within 6x (median wall, with the
# archive). Exit 0 when both hold, 1 when one misses, 2 when setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
RUNS=${STARTUP_RUNS:-20}
PORT=19392
ADMIN_PORT=19393

# shellcheck source=bench/lib.sh
source "$here/lib.sh"

command -v python3 >/dev/null || die "python3 is not installed"
command -v kcat >/dev/null || die "kcat is not installed (Debian: apt-get install kcat)"
new_run startup- startup
trap 'stop_pid "${kaas_pid:-}" kaas; rm -rf "$work"' EXIT

archive="${KAAS_ARCHIVE:-}"
if [[ -z "$archive" ]]; then
    if [[ -z "${BENCH_SKIP_BUILD:-}" ]]; then
        say "building the release archive (mvn package -pl cli -am -DskipTests)"
        mvn -B -q -f "$repo/pom.xml" package -DskipTests -pl cli -am >"$results/mvn-kaas.log" 2>&1 \
            || die "mvn package failed; see $results/mvn-kaas.log"
    fi
    archive="$(ls "$repo"/cli/target/kaas-*.tar.gz 2>/dev/null | head -1)"
fi
[[ -f "$archive" ]] || die "no release archive ${archive:-cli/target/kaas-*.tar.gz}; run without BENCH_SKIP_BUILD"
mkdir -p "$work/install"
tar -xzf "$archive" -C "$work/install"
home="$(ls -d "$work"/install/kaas-*)"
kaas="$home/bin/kaas"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"

say "filling one partition with 2,000 records through the unpacked kaas serve and kcat"
(cd "$work" && exec "$kaas" serve --listeners "PLAINTEXT://127.0.0.1:$PORT" --admin-listener "127.0.0.1:$ADMIN_PORT" \
    --data-dir "$work/kaas" >"$results/kaas-server.log" 2>&1) &
kaas_pid=$!
python3 - "$ADMIN_PORT" "$kaas_pid" <<'EOF' || die "kaas serve did not become ready; see $results/kaas-server.log"
import os, sys, time, urllib.request
port, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 90
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit(1)
    try:
        if urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).status == 200:
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit(1)
EOF
python3 -c 'import sys; [print(f"{i:06d}" + "x" * 94) for i in range(2000)]' \
    | kcat -P -b "127.0.0.1:$PORT" -t startup -p 0 -X acks=all >"$results/produce.out" 2>&1 \
    || die "producing failed; see $results/produce.out"
stop_pid "$kaas_pid" kaas; kaas_pid=""
partition="$work/kaas/startup/0"
segment="$(ls "$partition"/*.log | head -1)"
"$kaas" verify "$partition" >"$results/verify.out" || die "kaas verify of the partition failed; see $results/verify.out"
[[ -f "$home/lib/kaas.jsa" ]] || die "the first offline command did not record lib/kaas.jsa"
before="${STARTUP_BEFORE_ARCHIVE:-}"
if [[ -n "$before" ]]; then
    [[ -f "$before" ]] || die "no archive $before (STARTUP_BEFORE_ARCHIVE)"
    mkdir -p "$work/before"
    tar -xzf "$before" -C "$work/before"
    before="$(ls -d "$work"/before/kaas-*)/bin/kaas"
    "$before" verify "$partition" >"$results/verify-before.out" \
        || die "the before build's kaas verify failed; see $results/verify-before.out"
fi

load="$(cut -d' ' -f1-3 /proc/loadavg)"
say "timing ($RUNS runs of each command, round-robin, after 3 warm-ups)"
python3 - "$RUNS" "$load" "$java" "$kaas" "$partition" "$segment" "$before" <<'EOF' | tee "$results/report.txt"
import os, resource, statistics, subprocess, sys, time
runs, load, java, kaas, partition, segment, before = int(sys.argv[1]), sys.argv[2], *sys.argv[3:]
commands = [
    ("java -version", [java, "-version"], {}),
    ("kaas --version", [kaas, "--version"], {}),
    ("kaas verify small", [kaas, "verify", partition], {}),
    ("kaas dump-segment", [kaas, "dump-segment", segment], {}),
    ("kaas --version, no kaas.jsa", [kaas, "--version"], {"KAAS_CDS": "off"}),
    ("kaas verify small, no kaas.jsa", [kaas, "verify", partition], {"KAAS_CDS": "off"}),
]
if before:
    commands += [
        ("before: kaas --version", [before, "--version"], {}),
        ("before: kaas verify small", [before, "verify", partition], {}),
    ]
wall = {name: [] for name, _, _ in commands}
cpu = {name: [] for name, _, _ in commands}
def once(argv, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
for _ in range(3):
    for _, argv, env in commands:
        once(argv, env)
for _ in range(runs):  # round-robin: a busy moment hits every command alike
    for name, argv, env in commands:
        w, c = once(argv, env)
        wall[name].append(w)
        cpu[name].append(c)
base = statistics.median(wall["java -version"])
base_cpu = statistics.mean(cpu["java -version"])
print(f"load average before the run: {load}; {runs} runs each")
print(f"{'command':<31} {'median wall':>12} {'mean CPU':>10} {'/ java -version':>16} {'CPU / java':>11}")
for name, _, _ in commands:
    m = statistics.median(wall[name])
    c = statistics.mean(cpu[name])
    print(f"{name:<31} {m * 1000:>9.0f} ms {c * 1000:>7.0f} ms {m / base:>15.1f}x {c / base_cpu:>10.1f}x")
goals = {"kaas --version": 3.0, "kaas verify small": 6.0}
missed = False
for name, goal in goals.items():
    ratio = statistics.median(wall[name]) / base
    ok = ratio <= goal
    missed |= not ok
    print(f"{name} / java -version = {ratio:.1f}x (goal <= {goal:.0f}x): {'ok' if ok else 'MISSED'}")
sys.exit(1 if missed else 0)
EOF
