#!/usr/bin/env bash
# bench/scale.sh: many partitions at full size. `kaas serve` under `ulimit -n 20000` takes 2,000 topics x 10
# partitions; every partition acknowledges an acks=all record; the broker stops cleanly, starts again,
# and every partition acknowledges another record. Then Apache Kafka 4.4 (KRaft combined mode, one
# node) goes through the same steps under the same limit, side by side. Loopback only, unattended;
# not part of CI.
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
#   SCALE_MAX_OPEN_FILES=                   passed as --max-open-files (default: kaas's, 40% of ulimit -n)
#   SCALE_TMP=${TMPDIR:-/tmp}               where the data dir goes (a real disk)
#   SCALE_SKIP_BUILD=1                      use the built cli/target/lib/ and bench jar
#   SCALE_KEEP=1                            keep the data dir
#   SCALE_JVM="-Xmx4g -XX:+UseG1GC"         both brokers' heap and collector
#   SCALE_PRODUCERS=1                       producers the probe spreads the topics over (one JVM)
#   SCALE_JFR=1                             kaas under Flight Recorder (bench/results/.../kaas-<run>.jfr)
#   SCALE_SYSTEMS="kaas apache"             which brokers to run, one after the other
#   SCALE_APACHE_SECONDS=600                Apache's budget per phase (start, produce, restart)
#
# Output: a table on stdout and in bench/results/scale-<UTC time>/report.txt with the broker's logs
# and the samples. Exit 0 when both criteria hold for kaas, 1 when one fails, 2 when setup failed.
# Apache's figures are reported, not judged (it may not get through at all: it keeps one descriptor
# per partition's log open for ever).
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"

TOPICS=${SCALE_TOPICS:-2000}
PER_TOPIC=${SCALE_PARTITIONS:-10}
NOFILE=${SCALE_NOFILE:-20000}
FD_LIMIT=${SCALE_FD_LIMIT:-10000}
RESTART_SECONDS=${SCALE_RESTART_SECONDS:-90}
TMP_ROOT=${SCALE_TMP:-${TMPDIR:-/tmp}}
SYSTEMS=${SCALE_SYSTEMS:-kaas apache}
APACHE_SECONDS=${SCALE_APACHE_SECONDS:-600}
PRODUCERS=${SCALE_PRODUCERS:-1}
KAAS_PORT=127.0.0.1:39092
APACHE_PORT=127.0.0.1:39192
APACHE_CONTROLLER_PORT=127.0.0.1:39193
BOOTSTRAP=$KAAS_PORT
# apache_server_properties and new_cluster_id; this script's own helpers below take precedence.
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

results="$here/results/scale-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$results"
work="$(mktemp -d "$TMP_ROOT/kaas-scale.XXXXXX")"
data="$work/data"
broker_pid=""
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
    stop_pid "$broker_pid" broker
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
probe() { # args...: ScaleProbe against BOOTSTRAP; given up (status 1) as soon as the broker process is gone
    java "${TOOL_JVM[@]}" -cp "$CP" io.kaas.bench.ScaleProbe "$BOOTSTRAP" "$@" &
    while_alive $!
}

ticks() { # pid: its CPU time so far (user + system), in clock ticks; 0 once it is gone
    awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0
}
cpu_s() { # ticks: as seconds
    printf '%.1f' "$(echo "$1 / $(getconf CLK_TCK)" | bc -l)"
}

while_alive() { # pid: waits for pid (a client JVM); kills it and returns 1 if broker_pid dies first.
    # The client's CPU time, last seen, goes to $results/client-ticks.
    local pid=$1 t
    while kill -0 "$pid" 2>/dev/null; do
        t=$(ticks "$pid"); [[ ${t:-0} -gt 0 ]] && echo "$t" >"$results/client-ticks"
        if ! kill -0 "$broker_pid" 2>/dev/null; then
            say "the broker (pid $broker_pid) is gone; stopping the client"
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            return 1
        fi
        sleep 1
    done
    wait "$pid"
}
# Same heap for both brokers.
SCALE_JVM=${SCALE_JVM:--Xmx4g -XX:+UseG1GC}

start_sampler() { # name: open files and RSS of broker_pid every 0.2 s
    # Samples: seconds since start, open files, RSS (KiB).
    (t0=$(date +%s.%N); while kill -0 "$broker_pid" 2>/dev/null; do
        fds=$(ls "/proc/$broker_pid/fd" 2>/dev/null | wc -l)
        rss=$(awk '/VmRSS/ {print $2}' "/proc/$broker_pid/status" 2>/dev/null || echo 0)
        printf '%.1f %s %s\n' "$(echo "$(date +%s.%N) - $t0" | bc)" "$fds" "${rss:-0}"
        sleep 0.2
    done) >"$results/samples-$1.txt" &
    sampler_pid=$!
}

start_kaas() { # run-name: starts the broker under ulimit -n; sets broker_pid and the sampler
    local name=$1 extra=()
    [[ -n "${SCALE_MAX_OPEN_FILES:-}" ]] && extra=(--max-open-files "$SCALE_MAX_OPEN_FILES")
    local jvm=$SCALE_JVM
    [[ -n "${SCALE_JFR:-}" ]] && jvm="$jvm -XX:StartFlightRecording=filename=$results/kaas-$name.jfr,settings=profile,dumponexit=true"
    (ulimit -n "$NOFILE" && KAAS_JAVA_OPTS="$jvm" exec "$repo/bin/kaas" serve \
        --listeners "PLAINTEXT://$BOOTSTRAP" --data-dir "$data" --auto-create-topics=false --admin-listener none "${extra[@]}") \
        >"$results/kaas-$name.log" 2>&1 &
    broker_pid=$!
    start_sampler "kaas-$name"
    java "${TOOL_JVM[@]}" -cp "$CP" io.kaas.bench.AwaitBroker "$BOOTSTRAP" 60 >/dev/null || die "kaas did not start ($results/kaas-$name.log)"
}

start_apache() { # run-name: Apache Kafka 4.4, KRaft combined mode, the same ulimit and heap; formats on the first run
    local name=$1 dir="$work/apache"
    if [[ ! -f "$dir/server.properties" ]]; then
        mkdir -p "$dir/data"
        {
            apache_server_properties "$APACHE_PORT" "$APACHE_CONTROLLER_PORT" "$APACHE_PORT" "$dir/data"
            echo "auto.create.topics.enable=false"
        } >"$dir/server.properties"
        java "${TOOL_JVM[@]}" -cp "$CP" kafka.tools.StorageTool format -t "$(new_cluster_id)" -c "$dir/server.properties" \
            --standalone >"$results/apache-format.out" 2>&1 || die "kafka-storage format failed ($results/apache-format.out)"
    fi
    # shellcheck disable=SC2086 # SCALE_JVM holds several flags
    (ulimit -n "$NOFILE" && exec java $SCALE_JVM -Dlog4j2.configurationFile="$here/log4j2.properties" -Dbench.log.level=INFO \
        -Dbench.log.file="$results/apache-$name.log" -cp "$CP" kafka.Kafka "$dir/server.properties") \
        >"$results/apache-$name.out" 2>&1 &
    broker_pid=$!
    start_sampler "apache-$name"
    java "${TOOL_JVM[@]}" -cp "$CP" io.kaas.bench.AwaitBroker "$BOOTSTRAP" "$APACHE_SECONDS" >/dev/null &
    while_alive $! || { say "Apache did not start ($results/apache-$name.log)"; return 1; }
}

stop_broker() {
    stop_pid "$broker_pid" broker
    broker_pid=""
    wait "$sampler_pid" 2>/dev/null || true
    sampler_pid=""
}

max_col() { awk -v c="$2" 'BEGIN {m = 0} $c > m {m = $c} END {print m}' "$1"; }

partitions=$((TOPICS * PER_TOPIC))
verdict=0
declare -A fig=()

measure() { # system: the whole sequence on one broker; fills fig[system.*]
    local sys=$1 budget=$RESTART_SECONDS first_budget=300 t start_s
    if [[ $sys == apache ]]; then BOOTSTRAP=$APACHE_PORT; budget=$APACHE_SECONDS; first_budget=$APACHE_SECONDS; else BOOTSTRAP=$KAAS_PORT; fi
    say "$sys, first run: $TOPICS topics x $PER_TOPIC partitions, ulimit -n $NOFILE"
    start_s=$(date +%s.%N)
    if ! "start_$sys" first; then fig[$sys.create]="did not start"; stop_broker; return; fi
    fig[$sys.start0]=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start_s" | bc)")
    if t=$(probe create "$TOPICS" "$PER_TOPIC" 2>"$results/$sys-create.err" | awk '{print $2}') && [[ -n "$t" ]]; then
        fig[$sys.create]=$t
    else
        fig[$sys.create]="FAILED ($(tail -1 "$results/$sys-create.err" | cut -c1-80))"
    fi
    say "$sys: create ${fig[$sys.create]}"
    local b0; b0=$(ticks "$broker_pid")
    if t=$(probe produce "$TOPICS" "$PER_TOPIC" "$first_budget" "$PRODUCERS" 2>"$results/$sys-produce1.err" | awk '{print $2}') && [[ -n "$t" ]]; then
        fig[$sys.produce]=$t
    else
        fig[$sys.produce]="FAILED ($(tail -1 "$results/$sys-produce1.err" | cut -c1-80))"
    fi
    fig[$sys.cpu1]="$(cpu_s $(( $(ticks "$broker_pid") - b0 ))) / $(cpu_s "$(cat "$results/client-ticks" 2>/dev/null || echo 0)")"
    say "$sys: every partition acknowledged: ${fig[$sys.produce]}"
    kill -0 "$broker_pid" 2>/dev/null || fig[$sys.produce]="${fig[$sys.produce]}; broker died"
    sleep 2
    local stop_start; stop_start=$(date +%s.%N)
    stop_broker
    fig[$sys.stop]=$(printf '%.1f' "$(echo "$(date +%s.%N) - $stop_start" | bc)")
    fig[$sys.fds1]=$(max_col "$results/samples-$sys-first.txt" 2)
    fig[$sys.rss1]=$(( $(max_col "$results/samples-$sys-first.txt" 3) / 1024 ))

    say "$sys: restart"
    local restart_start; restart_start=$(date +%s.%N)
    if "start_$sys" second && probe produce "$TOPICS" "$PER_TOPIC" "$budget" "$PRODUCERS" >/dev/null 2>"$results/$sys-produce2.err"; then
        fig[$sys.restart]=$(printf '%.1f' "$(echo "$(date +%s.%N) - $restart_start" | bc)")
    else
        fig[$sys.restart]="FAILED after $(printf '%.0f' "$(echo "$(date +%s.%N) - $restart_start" | bc)") s"
    fi
    # The broker's whole life so far (start-up included) against the producing client's.
    fig[$sys.cpu2]="$(cpu_s "$(ticks "$broker_pid")") / $(cpu_s "$(cat "$results/client-ticks" 2>/dev/null || echo 0)")"
    [[ $sys == kaas ]] && fig[$sys.ready]=$(grep -o 'storage ready: .*' "$results/kaas-second.log" | head -1 || true)
    sleep 2
    stop_broker
    fig[$sys.fds2]=$(max_col "$results/samples-$sys-second.txt" 2)
    fig[$sys.rss2]=$(( $(max_col "$results/samples-$sys-second.txt" 3) / 1024 ))
}

for sys in $SYSTEMS; do
    data="$work/data-$sys"
    measure "$sys"
done

row() { printf '%-48s %18s %18s\n' "$1" "${fig[kaas.$2]:--}" "${fig[apache.$2]:--}"; }
{
    printf '%s partitions (%s topics x %s), ulimit -n %s, both brokers %s, %s\n' "$partitions" "$TOPICS" "$PER_TOPIC" "$NOFILE" "$SCALE_JVM" "$(date -u +%FT%TZ)"
    printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%-48s %18s %18s\n' "" kaas "apache 4.4"
    row "process start to serving (s)" start0
    row "create topics (s)" create
    row "every partition acks=all, first run (s)" produce
    row "open files, max, first run" fds1
    row "RSS MiB, max, first run" rss1
    row "clean shutdown (s)" stop
    row "broker / client CPU s, first acks=all round" cpu1
    row "restart to every partition acked again (s)" restart
    row "broker / client CPU s, restart to last ack" cpu2
    row "open files, max, after restart" fds2
    row "RSS MiB, max, after restart" rss2
    printf '%-48s %s\n' "kaas engine after restart" "${fig[kaas.ready]:--}"
} | tee "$results/report.txt"
if [[ " $SYSTEMS " == *" kaas "* ]]; then
    if (( ${fig[kaas.fds1]:-0} >= FD_LIMIT || ${fig[kaas.fds2]:-0} >= FD_LIMIT )); then say "FAIL: kaas open files reached $FD_LIMIT"; verdict=1; fi
    if [[ ${fig[kaas.restart]} == FAILED* ]] || (( $(echo "${fig[kaas.restart]} > $RESTART_SECONDS" | bc) )); then
        say "FAIL: kaas restart took over $RESTART_SECONDS s"; verdict=1
    fi
fi
exit $verdict
