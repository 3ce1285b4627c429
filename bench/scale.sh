#!/usr/bin/env bash
# bench/scale.sh: issue 15 at full size. `kaas serve` under `ulimit -n 20000` takes 2,000 topics x 10
# partitions; every partition acknowledges an acks=all record; the broker stops cleanly, starts again,
# and every partition acknowledges another record. Loopback only, unattended; not part of CI.
#
#   bench/scale.sh
#
# Pass criteria: the broker's open files (ls /proc/<pid>/fd, sampled every 0.2 s) stay under
# SCALE_FD_LIMIT, and after the restart every partition acknowledges within SCALE_RESTART_SECONDS of
# the process starting. Tunables (environment):
#   SCALE_TOPICS=2000 SCALE_PARTITIONS=10   topics and partitions per topic
#   SCALE_NOFILE=20000                      ulimit -n of the broker
#   SCALE_FD_LIMIT=10000                    open files the broker must stay under
#   SCALE_RESTART_SECONDS=90                restart until every partition acknowledged again
#   SCALE_MAX_OPEN_FILES=                   passed as --max-open-files (default: kaas's, half of ulimit -n)
#   SCALE_TMP=${TMPDIR:-/tmp}               where the data dir goes (a real disk)
#   SCALE_SKIP_BUILD=1                      use the built cli/target/kaas.jar and bench jar
#   SCALE_KEEP=1                            keep the data dir
#
# Output: a table on stdout and in bench/results/scale-<UTC time>/report.txt with the broker's logs
# and the samples. Exit 0 when both criteria hold, 1 when one fails, 2 when setup failed.
# Apache Kafka side by side: bench/run.sh shows how it is fetched and started; not done here.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"

TOPICS=${SCALE_TOPICS:-2000}
PER_TOPIC=${SCALE_PARTITIONS:-10}
NOFILE=${SCALE_NOFILE:-20000}
FD_LIMIT=${SCALE_FD_LIMIT:-10000}
RESTART_SECONDS=${SCALE_RESTART_SECONDS:-90}
TMP_ROOT=${SCALE_TMP:-${TMPDIR:-/tmp}}
BOOTSTRAP=127.0.0.1:39092

results="$here/results/scale-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$results"
work="$(mktemp -d "$TMP_ROOT/kaas-scale.XXXXXX")"
data="$work/data"
kaas_pid=""
sampler_pid=""

say() { printf '[scale %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { say "setup failed: $*"; exit 2; }

stop_pid() { # pid name: SIGTERM (a clean shutdown), SIGKILL after 120 s
    local pid=$1 name=$2
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    timeout 120 tail --pid="$pid" -f /dev/null || true
    if kill -0 "$pid" 2>/dev/null; then
        say "$name did not stop within 120 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    stop_pid "$sampler_pid" sampler
    stop_pid "$kaas_pid" "kaas serve"
    if [[ -z "${SCALE_KEEP:-}" ]]; then rm -rf "$work"; else say "data kept in $work"; fi
}
trap cleanup EXIT

if [[ -z "${SCALE_SKIP_BUILD:-}" ]]; then
    say "building kaas and the bench module"
    mvn -B -q -f "$repo/pom.xml" package -DskipTests -pl cli -am >"$results/mvn-kaas.log" 2>&1 || die "kaas build failed ($results/mvn-kaas.log)"
    mvn -B -q -f "$here/pom.xml" package -DskipTests >"$results/mvn-bench.log" 2>&1 || die "bench build failed ($results/mvn-bench.log)"
fi
bench_jar="$(ls "$here"/target/kaas-bench-*.jar 2>/dev/null | head -1)"
[[ -n "$bench_jar" ]] || die "no bench/target/kaas-bench-*.jar; run without SCALE_SKIP_BUILD"
CP="$here/.apache/lib/*:$bench_jar"
TOOL_JVM=(-Xmx1g -XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile="$here/log4j2.properties"
          -Dbench.log.file="$results/tools.log")
probe() { java "${TOOL_JVM[@]}" -cp "$CP" io.kaas.bench.ScaleProbe "$BOOTSTRAP" "$@"; }

start_kaas() { # run-name: starts the broker under ulimit -n; sets kaas_pid and the sampler
    local name=$1 extra=()
    [[ -n "${SCALE_MAX_OPEN_FILES:-}" ]] && extra=(--max-open-files "$SCALE_MAX_OPEN_FILES")
    (ulimit -n "$NOFILE" && KAAS_JAVA_OPTS="-Xmx2g -XX:+UseG1GC" exec "$repo/bin/kaas" serve \
        --listeners "PLAINTEXT://$BOOTSTRAP" --data-dir "$data" --auto-create-topics=false "${extra[@]}") \
        >"$results/kaas-$name.log" 2>&1 &
    kaas_pid=$!
    # Samples: seconds since start, open files, RSS (KiB).
    (t0=$(date +%s.%N); while kill -0 "$kaas_pid" 2>/dev/null; do
        fds=$(ls "/proc/$kaas_pid/fd" 2>/dev/null | wc -l)
        rss=$(awk '/VmRSS/ {print $2}' "/proc/$kaas_pid/status" 2>/dev/null || echo 0)
        printf '%.1f %s %s\n' "$(echo "$(date +%s.%N) - $t0" | bc)" "$fds" "${rss:-0}"
        sleep 0.2
    done) >"$results/samples-$name.txt" &
    sampler_pid=$!
    java "${TOOL_JVM[@]}" -cp "$CP" io.kaas.bench.AwaitBroker "$BOOTSTRAP" 60 >/dev/null || die "kaas did not start ($results/kaas-$name.log)"
}

stop_kaas() {
    stop_pid "$kaas_pid" "kaas serve"
    kaas_pid=""
    wait "$sampler_pid" 2>/dev/null || true
    sampler_pid=""
}

max_col() { awk -v c="$2" 'BEGIN {m = 0} $c > m {m = $c} END {print m}' "$1"; }

say "first run: $TOPICS topics x $PER_TOPIC partitions, ulimit -n $NOFILE"
start_kaas first
create_s=$(probe create "$TOPICS" "$PER_TOPIC" | awk '{print $2}') || die "creating topics failed"
say "created in $create_s s"
produce_s=$(probe produce "$TOPICS" "$PER_TOPIC" 300 | awk '{print $2}') || die "first produce failed"
say "every partition acknowledged in $produce_s s"
sleep 2
stop_start=$(date +%s.%N)
stop_kaas
stop_s=$(echo "$(date +%s.%N) - $stop_start" | bc)

say "restart"
restart_start=$(date +%s.%N)
start_kaas second
restart_ok=1
probe produce "$TOPICS" "$PER_TOPIC" "$RESTART_SECONDS" >/dev/null || restart_ok=0
restart_s=$(echo "$(date +%s.%N) - $restart_start" | bc)
ready_line=$(grep -o 'storage ready: .*' "$results/kaas-second.log" | head -1 || true)
sleep 2
stop_kaas

fds_first=$(max_col "$results/samples-first.txt" 2)
fds_second=$(max_col "$results/samples-second.txt" 2)
rss_first=$(( $(max_col "$results/samples-first.txt" 3) / 1024 ))
rss_second=$(( $(max_col "$results/samples-second.txt" 3) / 1024 ))
partitions=$((TOPICS * PER_TOPIC))
verdict=0
{
    printf 'kaas scale run, %s partitions (%s topics x %s), ulimit -n %s, %s\n' "$partitions" "$TOPICS" "$PER_TOPIC" "$NOFILE" "$(date -u +%FT%TZ)"
    printf '%-44s %s\n' "create topics (s)" "$create_s"
    printf '%-44s %s\n' "every partition acks=all, first run (s)" "$produce_s"
    printf '%-44s %s\n' "open files, max, first run" "$fds_first"
    printf '%-44s %s\n' "RSS MiB, max, first run" "$rss_first"
    printf '%-44s %.1f\n' "clean shutdown (s)" "$stop_s"
    printf '%-44s %.1f%s\n' "restart to every partition acked again (s)" "$restart_s" "$([[ $restart_ok = 1 ]] || echo ' (FAILED)')"
    printf '%-44s %s\n' "engine after restart" "${ready_line:-?}"
    printf '%-44s %s\n' "open files, max, after restart" "$fds_second"
    printf '%-44s %s\n' "RSS MiB, max, after restart" "$rss_second"
} | tee "$results/report.txt"
if (( fds_first >= FD_LIMIT || fds_second >= FD_LIMIT )); then say "FAIL: open files reached $FD_LIMIT"; verdict=1; fi
if [[ $restart_ok != 1 ]] || (( $(echo "$restart_s > $RESTART_SECONDS" | bc) )); then say "FAIL: restart took over $RESTART_SECONDS s"; verdict=1; fi
exit $verdict
