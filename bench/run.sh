#!/usr/bin/env bash
# bench/run.sh: Apache Kafka 4.4.0 and `kaas serve` side by side under Apache's own load tools
# (rates, latency, each broker's CPU per record). Unattended, loopback only; not part of CI.
# All 12 rows take about 35 minutes on 2 cores (the fixed-rate rows most of it); a subset (BENCH_SCENARIOS) less.
#
#   bench/run.sh            # everything: fetch, build, disk probe, 9 scenario rows, table
#
# Tunables (environment):
#   BENCH_ROUNDS=3            measured rounds per system and scenario (A B A B ...), after one warm-up each
#   BENCH_FIXED_ROUNDS=4      the same for the fixed-rate rows, whose tails need more records
#   BENCH_FIXED_SECONDS=15    measured seconds of one fixed-rate run (after 2 s of warm-up in the same JVM)
#   BENCH_SECONDS=6           target length of one measured run of the fastest system (same records for all)
#   BENCH_DISK_SECONDS=4      length of each of the two disk probes
#   BENCH_CONSUME_RECORDS=1000000 1 KiB records prepared for the consume scenarios
#   BENCH_RUN_TIMEOUT=120     hard cap (s) on one load process; hitting it is a scenario error
#   BENCH_TMP=${TMPDIR:-/tmp} where the data dirs and the disk probe go (must be a real disk, not tmpfs)
#   BENCH_SKIP_BUILD=1        use the already built bench module and cli/target/lib/
#   BENCH_KEEP=1              keep the data dirs afterwards
#   BENCH_KAAS_LAUNCHER=bin/kaas  what runs `serve`; bench/aa-launcher.sh puts Apache in kaas's place
#                             (an A/A check: every ratio should be near 1.00x)
#   BENCH_SCENARIOS=all       or a comma-separated subset of the scenario ids (durable,durable-rate,
#                             durable-5k,durable-20k,many-producers,pagecache,pagecache-rate,consume-1,
#                             consume-3,latency,latency-rate,transactional)
#   BENCH_PIN=1               broker on BENCH_BROKER_CPUS (1), load on BENCH_LOAD_CPUS (0); 0 turns it off
#   BENCH_RT=1                also run brokers and load at a real-time priority (chrt -f 10): on a shared
#                             machine, tails are then not the scheduler's (lib.sh)
#   BENCH_JFR=1               a JFR recording (settings=profile) of each broker into the results dir
#   BENCH_A_LAUNCHER=         a kaas launcher for Apache's slot: kaas against kaas, with BENCH_A_ARGS
#                             (its extra `serve` flags) and BENCH_B_ARGS (kaas's), e.g. metrics off vs on
#   BENCH_A_LABEL, BENCH_B_LABEL  names the table prints for the two slots (apache, kaas)
#   BENCH_SCRAPE_SECONDS=     scrape kaas's /metrics every so many seconds during every run
#   BENCH_PORT_OFFSET=0       added to every port (19092, 19093, 29092, 29644)
#   BENCH_PAGECACHE_CONFIG=   extra topic configs (k=v,...) for the page-cache topic on both brokers,
#                             e.g. segment.bytes=67108864 to roll segments during the acks=1 rows
#
# Output: the table on stdout and in bench/results/<UTC time>/report.txt, next to every tool's
# raw output and both brokers' logs; for each fixed-rate row, <scenario>-percentiles.png and
# <scenario>-over-time.png (LatencyPlots) from its HdrHistogram logs (<scenario>.<system>.r<n>.producer1.hlog). Exit status: 0 when every scenario ran (kaas being unavailable
# is reported in its rows, not an error), 1 when any scenario errored, 2 when setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"

ROUNDS=${BENCH_ROUNDS:-3}
FIXED_ROUNDS=${BENCH_FIXED_ROUNDS:-4}
FIXED_SECONDS=${BENCH_FIXED_SECONDS:-15}
SECONDS_PER_RUN=${BENCH_SECONDS:-6}
DISK_SECONDS=${BENCH_DISK_SECONDS:-4}
CONSUME_RECORDS=${BENCH_CONSUME_RECORDS:-1000000}
RUN_TIMEOUT=${BENCH_RUN_TIMEOUT:-120}
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}

# BENCH_PORT_OFFSET moves every port, so two checkouts can run the bench at once (they then share the cores).
PORT_OFFSET=${BENCH_PORT_OFFSET:-0}
APACHE_BOOTSTRAP=127.0.0.1:$((19092 + PORT_OFFSET))
APACHE_CONTROLLER=127.0.0.1:$((19093 + PORT_OFFSET))
KAAS_BOOTSTRAP=127.0.0.1:$((29092 + PORT_OFFSET))
# What "flush interval raised" means for kaas's page-cache and consume topics (per-topic
# flush.messages): never fsync on count, like Apache's default log.flush.interval.messages.
KAAS_RAISED_FLUSH=1000000000
KAAS_LAUNCHER="$(readlink -f "${BENCH_KAAS_LAUNCHER:-$repo/bin/kaas}")"
A_LAUNCHER="${BENCH_A_LAUNCHER:+$(readlink -f "$BENCH_A_LAUNCHER")}"
# kaas's admin listener (metrics, health) on a port of its own, so another kaas on the machine
# (tests, other sessions) on the default 9644 cannot stop it from starting; metrics stay on.
KAAS_ADMIN=127.0.0.1:$((29644 + PORT_OFFSET))
read -r -a A_SERVE_EXTRA <<<"${BENCH_A_ARGS:-}"
read -r -a B_EXTRA <<<"${BENCH_B_ARGS:-}"
KAAS_SERVE_EXTRA=(--admin-listener "$KAAS_ADMIN" ${B_EXTRA[@]+"${B_EXTRA[@]}"})
[[ "$KAAS_LAUNCHER" == */aa-launcher.sh ]] && KAAS_SERVE_EXTRA=()

# shellcheck source=bench/lib.sh
source "$here/lib.sh"
new_run "" kaas-bench

apache_pid=""
kaas_pid=""
scraper_pid=""
kaas_reason=""          # non-empty when kaas cannot be measured; then its rows say why
declare -a load_pids=()

# ---------------------------------------------------------------------------------------------
# Process lifecycle: every process this script starts is stopped by its pid on any exit.

cleanup() {
    local pid
    for pid in "${load_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    stop_pid "$scraper_pid" scraper
    stop_pid "$kaas_pid" kaas
    stop_pid "$apache_pid" "Apache Kafka"
    if [[ -z "${BENCH_KEEP:-}" ]]; then rm -rf "$work"; else say "data kept in $work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# 1. Fetch Apache Kafka through Maven and build the helpers (and kaas).

for port in $APACHE_BOOTSTRAP $APACHE_CONTROLLER $KAAS_BOOTSTRAP $KAAS_ADMIN; do
    port_in_use "$port" && die "$port is already in use; stop whatever listens there first"
done
fstype="$(stat -f -c %T "$work")"
[[ "$fstype" == tmpfs || "$fstype" == ramfs ]] && die "$work is on $fstype: fsync would be free. Set BENCH_TMP to a disk"

build_bench
build_kaas
[[ -n "$kaas_reason" ]] && { say "$kaas_reason: measuring Apache Kafka only"; printf '%s\n' "$kaas_reason" >"$results/kaas.unavailable"; }

{
    echo "kaas vs Apache Kafka 4.4.0, $(date -u '+%Y-%m-%d %H:%M UTC'), bench at commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM, $(uname -sr), $(java -version 2>&1 | head -1)"
    echo "kaas launcher: $KAAS_LAUNCHER (commit $(git -C "$(dirname "$KAAS_LAUNCHER")" rev-parse --short HEAD 2>/dev/null || echo "unknown: not in a git checkout"))"
    echo "data dirs: $work ($fstype); brokers ${BROKER_JVM[*]:0:2}; $ROUNDS measured rounds of ~${SECONDS_PER_RUN}s per system, after a warm-up"
    if (( ${#PIN_BROKER[@]} )); then
        echo "pinned: broker under test on cpu ${BENCH_BROKER_CPUS:-1}, load generators on cpu ${BENCH_LOAD_CPUS:-0} (taskset)"
    else
        echo "not pinned"
    fi
    [[ -n "$A_LAUNCHER" ]] && echo "slot apache: $A_LAUNCHER serve ${A_SERVE_EXTRA[*]}; slot kaas: $KAAS_LAUNCHER serve ${KAAS_SERVE_EXTRA[*]}"
    [[ -n "${BENCH_SCRAPE_SECONDS:-}" ]] && echo "kaas's /metrics scraped every ${BENCH_SCRAPE_SECONDS}s throughout"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$results/meta.txt"
printf '%s\n' "${BENCH_A_LABEL:-apache}" >"$results/label.apache"
printf '%s\n' "${BENCH_B_LABEL:-kaas}" >"$results/label.kaas"
cat "$results/meta.txt" >&2

cat >"$results/scenarios.tsv" <<'EOF'
durable	1 durable: acks=all 1KiB 8 part. 4 producers
durable-rate	1 durable at a fixed 4x1000 rec/s (service time)
durable-5k	1 durable at a fixed 4x1250 rec/s
durable-20k	1 durable at a fixed 4x5000 rec/s
many-producers	6 durable: 100 producers x 10 rec/s
pagecache	2 page cache: acks=1 1KiB 8 part. 4 producers
pagecache-rate	2 page cache at a fixed 4x5000 rec/s (service time)
consume-1	3 consume: 1 consumer, 8 part. 1KiB
consume-3	3 consume: 3 consumers (each own group)
latency	4 latency: acks=all 100B 1 part. linger 0
latency-rate	4 latency at a fixed 500 rec/s (service time)
transactional	5 transactional: 1KiB 8 part. 4 producers, commit/3s
EOF
wanted() { [[ "${BENCH_SCENARIOS:-all}" == all || ",$BENCH_SCENARIOS," == *",$1,"* ]]; }
awk -F'\t' -v want="${BENCH_SCENARIOS:-all}" 'want == "all" || index("," want ",", "," $1 ",")' \
    "$results/scenarios.tsv" >"$results/scenarios.tmp" && mv "$results/scenarios.tmp" "$results/scenarios.tsv"

# ---------------------------------------------------------------------------------------------
# 2. The disk's own limits, on the disk the brokers will write to.

say "probing the disk under $work (${DISK_SECONDS}s per test)"
tool disk-probe io.kaas.bench.DiskProbe "$work" "$DISK_SECONDS" >"$results/disk.txt" \
    || die "disk probe failed"
cat "$results/disk.txt" >&2

# ---------------------------------------------------------------------------------------------
# 3. Brokers.

create_topics() { # system bootstrap spec...
    local system=$1 bootstrap=$2; shift 2
    tool "$system-create-topics" io.kaas.bench.CreateTopics "$bootstrap" "$@" >>"$results/$system-topics.out" 2>&1
}

bootstrap_of() { [[ $1 == apache ]] && echo "$APACHE_BOOTSTRAP" || echo "$KAAS_BOOTSTRAP"; }
pid_of() { [[ $1 == apache ]] && echo "$apache_pid" || echo "$kaas_pid"; }
systems() { echo apache; [[ -n "$kaas_pid" ]] && echo kaas; return 0; }   # the brokers now up

# ---------------------------------------------------------------------------------------------
# 4. Load runs. Each run starts N load processes at once, waits for all, and checks each one.

fail() { # scenario system reason: marks the scenario errored for that system (Report prints it)
    say "ERROR $1 on $2: $3"
    printf '%s\n' "$3" >>"$results/$1.$2.failed"
}
failed() { [[ -f "$results/$1.$2.failed" ]]; }

run_load() { # scenario system tag role count cmd...: count processes of cmd, "{i}" replaced by the index
    local scenario=$1 system=$2 tag=$3 role=$4 count=$5; shift 5
    local pids=() i pid rc status=0 out
    if ! kill -0 "$(pid_of "$system")" 2>/dev/null; then
        fail "$scenario" "$system" "the $system broker is not running (see its log in $results)"
        return 1
    fi
    local broker_pid ticks_before split_before load_before
    broker_pid="$(pid_of "$system")"
    ticks_before="$(cpu_ticks "$broker_pid")"
    split_before="$(cpu_split "$broker_pid")"
    load_before="$(cut -d' ' -f1 /proc/loadavg)"
    for i in $(seq 1 "$count"); do
        out="$results/$scenario.$system.$tag.$role$i"
        ${PIN_LOAD[@]+"${PIN_LOAD[@]}"} timeout "$RUN_TIMEOUT" java "${TOOL_JVM[@]}" "$LOG_CONFIG" -Dbench.log.file="$out.log" -cp "$CP" \
            "${@//\{i\}/$i}" >"$out.out" 2>"$out.err" &
        pids+=("$!")
    done
    load_pids=("${pids[@]}")
    for i in "${!pids[@]}"; do
        pid=${pids[$i]}; out="$results/$scenario.$system.$tag.$role$((i + 1))"
        rc=0; wait "$pid" || rc=$?
        if (( rc == 124 )); then
            fail "$scenario" "$system" "$role $((i + 1)) ($tag) did not finish in ${RUN_TIMEOUT}s"; status=1
        elif (( rc != 0 )); then
            fail "$scenario" "$system" "$role $((i + 1)) ($tag) exited with $rc; see $out.err"; status=1
        elif grep -q -e 'Exception' -e 'Exiting before consuming' "$out.err" "$out.out"; then
            # ProducerPerformance prints a failed send's stack trace and carries on: still an error,
            # a broker that drops acknowledged-or-not records has not run the scenario.
            fail "$scenario" "$system" "$role $((i + 1)) ($tag) reported errors; see $out.err"; status=1
        fi
    done
    load_pids=()
    # The broker's own CPU over the run (all its threads, JIT and GC included) and the records the
    # run moved: Report prints CPU per record, the efficiency figure machine noise does not blur.
    if [[ -n "${RUN_RECORDS:-}" ]]; then
        awk -v t0="$ticks_before" -v t1="$(cpu_ticks "$broker_pid")" -v hz="$(getconf CLK_TCK)" -v n="$RUN_RECORDS" \
            'BEGIN { printf "%.2f %d\n", (t1 - t0) / hz, n }' >"$results/$scenario.$system.$tag.cpu"
        # The same ticks split into user and system (kernel) time: where a broker's cost per record is
        # the kernel's (sendfile, write, epoll), user-space work cannot bring it down.
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$system" "$tag" "$split_before" "$(cpu_split "$broker_pid")" \
            "$RUN_RECORDS" >>"$results/cpu-split.tsv"
        # How busy the machine was (other sessions' builds included): 1-minute load before and after.
        printf '%s\t%s\t%s\t%s\t%s\n' "$scenario" "$system" "$tag" "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" >>"$results/load.tsv"
    fi
    return $status
}

cpu_ticks() { # pid: user + system CPU ticks the process has used so far
    awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

cpu_split() { # pid: user, system and JIT-compiler CPU ticks so far, tab-separated
    # The JIT's share: the C1 and C2 compiler threads' own ticks (a thread's comm is in parentheses and
    # may hold a space, so its fields are counted from after the closing one: utime and stime are 12, 13).
    local jit
    jit="$(cat /proc/"$1"/task/*/stat 2>/dev/null | awk '/\((C1|C2) CompilerThre\)/ { sub(/^.*\) /, ""); j += $12 + $13 }
        END { print j + 0 }')"
    awk -v j="$jit" '{ printf "%d\t%d\t%d", $14, $15, j }' "/proc/$1/stat" 2>/dev/null || printf '0\t0\t0'
}

producer_rate() { # files...: summed records/s of the final (steady-state if any) summary lines
    awk '/records sent, .* 50th/ { for (i = 1; i <= NF; i++) if ($i == "records/sec") r[FILENAME] = $(i - 1) }
         END { s = 0; for (f in r) s += r[f]; printf "%.0f\n", s }' "$@"
}
consumer_rate() { # files...: summed fetch.nMsg.sec
    awk -F', *' 'h[FILENAME] == 1 { s += $10; h[FILENAME] = 2 } /^start\.time/ { h[FILENAME] = 1 }
                 END { printf "%.0f\n", s }' "$@"
}
sized() { # rate procs min max: records per process for a run of ~SECONDS_PER_RUN
    awk -v r="$1" -v p="$2" -v lo="$3" -v hi="$4" -v s="$SECONDS_PER_RUN" \
        'BEGIN { n = int(r * s / p); if (n < lo) n = lo; if (n > hi) n = hi; print n }'
}

fastest() { # rates...: the highest (0 when none)
    local m=0 r
    for r in "$@"; do (( r > m )) && m=$r; done
    echo "$m"
}

# Every system gets the same load: within a round, the same command line (same record count). The
# count is sized from the fastest system's last measured rate so its run lasts ~SECONDS_PER_RUN; a
# slower system takes longer over the same records. The warm-up ran on cold brokers and cold load
# JVMs and underestimates, so after each round the count is sized again from that round's rates.
produce_scenario() { # scenario topic procs record_size warmup_records producer-properties...
    local scenario=$1 topic=$2 procs=$3 size=$4 warm=$5; shift 5
    local props=("$@") system round n
    local -A rate_of=()
    # Bound one run to ~1.5 GB on disk whatever the calibration says.
    local cap=$((1500000000 / size / procs))
    perf() { # n: the ProducerPerformance command line for n records (first fifth excluded as warm-up)
        echo org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$bootstrap" --topic "$topic" \
            --num-records "$1" --warmup-records "$(($1 / 5))" --record-size "$size" --throughput -1 \
            --command-property "${props[@]}" client.id=bench-producer-{i} ${TX_ARGS:-}
    }
    say "scenario $scenario: warm-up"
    for system in $(systems); do
        failed "$scenario" "$system" && continue
        local bootstrap; bootstrap="$(bootstrap_of "$system")"
        # shellcheck disable=SC2046 # perf's words are split on purpose; none contains a space
        if run_load "$scenario" "$system" w producer "$procs" $(perf "$warm"); then
            rate_of[$system]="$(producer_rate "$results/$scenario.$system.w.producer"*.out)"
            say "  $system warm-up: ${rate_of[$system]} records/s"
        fi
    done
    for round in $(seq 1 "$ROUNDS"); do
        n="$(sized "$(fastest "${rate_of[@]}")" "$procs" 1000 "$cap")"
        for system in $(systems); do
            failed "$scenario" "$system" && continue
            local bootstrap; bootstrap="$(bootstrap_of "$system")"
            say "scenario $scenario: round $round, $system ($n records per producer)"
            # shellcheck disable=SC2046
            if RUN_RECORDS=$((n * procs)) run_load "$scenario" "$system" "r$round" producer "$procs" $(perf "$n"); then
                rate_of[$system]="$(producer_rate "$results/$scenario.$system.r$round.producer"*.out)"
            fi
        done
    done
}

consume_scenario() { # scenario consumers
    local scenario=$1 consumers=$2 system round n
    local -A rate_of=()
    consumer_perf() { # tag n
        echo org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bootstrap" --topic consume \
            --num-records "$2" --group "bench-$scenario-$1-{i}" --timeout 20000
    }
    say "scenario $scenario: warm-up"
    for system in $(systems); do
        failed "$scenario" "$system" && continue
        local bootstrap; bootstrap="$(bootstrap_of "$system")"
        # shellcheck disable=SC2046 # consumer_perf's words are split on purpose; none contains a space
        if run_load "$scenario" "$system" w consumer "$consumers" $(consumer_perf w "$((CONSUME_RECORDS / 4))"); then
            rate_of[$system]="$(consumer_rate "$results/$scenario.$system.w.consumer"*.out)"
            say "  $system warm-up: ${rate_of[$system]} records/s"
        fi
    done
    for round in $(seq 1 "$ROUNDS"); do
        n="$(sized "$(fastest "${rate_of[@]}")" "$consumers" 20000 "$CONSUME_RECORDS")"
        for system in $(systems); do
            failed "$scenario" "$system" && continue
            local bootstrap; bootstrap="$(bootstrap_of "$system")"
            say "scenario $scenario: round $round, $system ($n records per consumer)"
            # shellcheck disable=SC2046
            if RUN_RECORDS=$((n * consumers)) run_load "$scenario" "$system" "r$round" consumer "$consumers" $(consumer_perf "r$round" "$n"); then
                rate_of[$system]="$(consumer_rate "$results/$scenario.$system.r$round.consumer"*.out)"
            fi
        done
    done
}

# The fixed-rate rows: one load JVM of `producers` KafkaProducers (FixedRateLatency), each at `rate`
# records/s, latency from each record's due time into an HdrHistogram log per run. Rounds alternate the
# systems as in the rows above; Report merges the rounds' logs, LatencyPlots draws them.
fixed_rate_scenario() { # scenario topic producers rate record_size producer-properties...
    local scenario=$1 topic=$2 producers=$3 rate=$4 size=$5; shift 5
    local props=("$@") system round
    fixed() { # tag seconds warmup-seconds
        echo io.kaas.bench.FixedRateLatency --bootstrap-server "$bootstrap" --topic "$topic" --producers "$producers" \
            --rate "$rate" --record-size "$size" --seconds "$2" --warmup-seconds "$3" \
            --histogram-log "$results/$scenario.$system.$1.producer{i}.hlog" --command-property "${props[@]}"
    }
    say "scenario $scenario: warm-up"
    for system in $(systems); do
        failed "$scenario" "$system" && continue
        local bootstrap; bootstrap="$(bootstrap_of "$system")"
        # shellcheck disable=SC2046 # fixed's words are split on purpose; none contains a space
        run_load "$scenario" "$system" w producer 1 $(fixed w 4 1) || true
    done
    for round in $(seq 1 "$FIXED_ROUNDS"); do
        for system in $(systems); do
            failed "$scenario" "$system" && continue
            local bootstrap; bootstrap="$(bootstrap_of "$system")"
            say "scenario $scenario: round $round, $system ($producers x $rate records/s for ${FIXED_SECONDS}s)"
            # shellcheck disable=SC2046
            RUN_RECORDS=$((producers * rate * (FIXED_SECONDS + 2))) \
                run_load "$scenario" "$system" "r$round" producer 1 $(fixed "r$round" "$FIXED_SECONDS" 2) || true
        done
    done
}

prepare_consume_topic() {
    local system
    for system in $(systems); do
        local bootstrap; bootstrap="$(bootstrap_of "$system")"
        say "preparing topic consume on $system: $CONSUME_RECORDS records of 1 KiB"
        if ! run_load consume-prep "$system" p producer 1 org.apache.kafka.tools.ProducerPerformance \
                --bootstrap-server "$bootstrap" --topic consume --num-records "$CONSUME_RECORDS" --record-size 1024 \
                --throughput -1 --command-property acks=1; then
            fail consume-1 "$system" "preparing the topic failed; see $results/consume-prep.$system.*"
            fail consume-3 "$system" "preparing the topic failed; see $results/consume-prep.$system.*"
        fi
    done
}

# ---------------------------------------------------------------------------------------------
# 5. The scenarios. Each broker runs once throughout, so both are as warm at every scenario; the
# durability of each topic is its per-topic flush.messages:
#   Apache: durable topics flush.messages=1 (the per-topic form of log.flush.interval.messages=1),
#           the others Apache's default (no count-based flush);
#   kaas:   durable topics its default (fsync before acknowledging), the others flush.messages
#           raised (the per-topic form of --flush-interval-messages).

PC_EXTRA="${BENCH_PAGECACHE_CONFIG:+,$BENCH_PAGECACHE_CONFIG}"
KAAS_TOPICS=(durable:8 latency:1 transactional:8
             "pagecache:8:flush.messages=$KAAS_RAISED_FLUSH$PC_EXTRA" consume:8:flush.messages=$KAAS_RAISED_FLUSH)
if [[ -n "$A_LAUNCHER" ]]; then
    start_kaas_as_a
    create_topics apache "$APACHE_BOOTSTRAP" "${KAAS_TOPICS[@]}" || die "creating A's topics failed; see $results/apache-topics.out"
else
    start_apache
    create_topics apache "$APACHE_BOOTSTRAP" durable:8:flush.messages=1 latency:1:flush.messages=1 \
        transactional:8:flush.messages=1 "pagecache:8${BENCH_PAGECACHE_CONFIG:+:$BENCH_PAGECACHE_CONFIG}" consume:8 \
        || die "creating Apache topics failed; see $results/apache-topics.out"
fi

if [[ -z "$kaas_reason" ]]; then
    if ! start_kaas; then
        for s in $(cut -f1 "$results/scenarios.tsv"); do fail "$s" kaas "kaas serve did not start; see $results/kaas-server.log"; done
    elif ! create_topics kaas "$KAAS_BOOTSTRAP" "${KAAS_TOPICS[@]}"; then
        for s in $(cut -f1 "$results/scenarios.tsv"); do fail "$s" kaas "creating topics failed; see $results/kaas-topics.out"; done
    fi
fi

if [[ -n "${BENCH_SCRAPE_SECONDS:-}" && -n "$kaas_pid" ]]; then
    # Scrapes during every run, as Prometheus would (more often than its default 15 s); the scraper
    # is pinned with the load, the broker's CPU for answering it is in kaas's cpu us/rec.
    (while :; do
        ${PIN_LOAD[@]+"${PIN_LOAD[@]}"} curl -s -o /dev/null -w '%{http_code} %{size_download} %{time_total}\n' \
            "http://$KAAS_ADMIN/metrics" || echo "failed"
        sleep "$BENCH_SCRAPE_SECONDS"
    done) >"$results/scrapes.txt" 2>&1 &
    scraper_pid=$!
fi

wanted durable && produce_scenario durable durable 4 1024 8000 acks=all
# Unthrottled producers measure their own queueing (p50 of seconds); at a rate both brokers sustain,
# p50/p99 are the broker's service time: append, fsync, answer. 20,000 records/s is above Apache's
# durable capacity on the reference disk (row 1): there the row shows which broker keeps up.
wanted durable-rate && fixed_rate_scenario durable-rate durable 4 1000 1024 acks=all
wanted durable-5k && fixed_rate_scenario durable-5k durable 4 1250 1024 acks=all
wanted durable-20k && fixed_rate_scenario durable-20k durable 4 5000 1024 acks=all
# Microservice traffic: many connections, each nearly idle.
wanted many-producers && fixed_rate_scenario many-producers durable 100 10 1024 acks=all
wanted latency && produce_scenario latency latency 1 100 40000 acks=all linger.ms=0
wanted latency-rate && fixed_rate_scenario latency-rate latency 1 500 100 acks=all linger.ms=0

wanted pagecache && produce_scenario pagecache pagecache 4 1024 30000 acks=1
# acks=1's tail at a rate both brokers sustain (the goal: p99 no worse than Apache's in any scenario).
wanted pagecache-rate && fixed_rate_scenario pagecache-rate pagecache 4 5000 1024 acks=1
# Transactions (ProducerPerformance --transactional-id, one id per process; it commits every 3 s by
# default): acks=all and idempotence implied, durable topic settings on both as in row 1.
wanted transactional && TX_ARGS="--transactional-id bench-tx-{i}" produce_scenario transactional transactional 4 1024 8000 acks=all
if wanted consume-1 || wanted consume-3; then prepare_consume_topic; fi
wanted consume-1 && consume_scenario consume-1 1
wanted consume-3 && consume_scenario consume-3 3
stop_pid "$scraper_pid" scraper; scraper_pid=""

stop_pid "$kaas_pid" kaas; kaas_pid=""
stop_pid "$apache_pid" "Apache Kafka"; apache_pid=""

# ---------------------------------------------------------------------------------------------
# 6. The table.

status=0
tool report io.kaas.bench.Report "$results" >"$results/report.txt" || status=1
tool latency-plots io.kaas.bench.LatencyPlots "$results" >"$results/plots.txt" 2>&1 \
    || say "drawing the latency plots failed; see $results/plots.txt"
if [[ -f "$results/load.tsv" ]]; then
    # How loaded the machine was: the 1-minute load average around each scenario's measured runs.
    awk -F'\t' '{ k = $1; if (!(k in lo)) { lo[k] = 99999; order[++n] = k }
                   for (i = 4; i <= 5; i++) { if ($i < lo[k]) lo[k] = $i; if ($i > hi[k]) hi[k] = $i } }
                 END { print "1-minute load average during the measured runs (2 cores; other sessions included):"
                       for (i = 1; i <= n; i++) printf "  %-14s %5.2f - %5.2f\n", order[i], lo[order[i]], hi[order[i]] }' \
        "$results/load.tsv" >>"$results/report.txt"
fi
if [[ -f "$results/cpu-split.tsv" ]]; then
    # Columns: scenario system tag user0 sys0 jit0 user1 sys1 jit1 records (ticks); summed over a
    # scenario's rounds. "without JIT": the broker's CPU less its JIT compiler threads' (compiling is
    # warm-up, and a new client connection can send hot code back to it: on the fixed-rate rows it was up
    # to half of either broker's CPU in the first rounds and nothing by the fourth).
    awk -F'\t' -v hz="$(getconf CLK_TCK)" -v la="$(cat "$results/label.apache" 2>/dev/null || echo apache)" \
        -v lk="$(cat "$results/label.kaas" 2>/dev/null || echo kaas)" '
        { k = $1 "\t" ($2 == "apache" ? la : $2 == "kaas" ? lk : $2); if (!(k in n)) order[++m] = k
          u[k] += $7 - $4; s[k] += $8 - $5; j[k] += $9 - $6; n[k] += $10 }
        END { print "broker CPU per record split into user and system (kernel) time, and the JIT compilers share, all measured rounds:"
              for (i = 1; i <= m; i++) { k = order[i]; split(k, f, "\t")
                  printf "  %-14s %-10s user %6.2f us  system %6.2f us  (system %3.0f%%)  JIT %6.2f us  without JIT %6.2f us\n", f[1], f[2],
                      u[k] / hz / n[k] * 1e6, s[k] / hz / n[k] * 1e6, (u[k] + s[k]) ? 100 * s[k] / (u[k] + s[k]) : 0,
                      j[k] / hz / n[k] * 1e6, (u[k] + s[k] - j[k]) / hz / n[k] * 1e6 } }' \
        "$results/cpu-split.tsv" >>"$results/report.txt"
fi
if [[ -f "$results/scrapes.txt" ]]; then
    awk '$1 == 200 { n++; b += $2; t += $3; if ($3 > m) m = $3 } $1 != 200 { f++ }
         END { printf "scrapes of kaas /metrics: %d ok (%d failed), %.0f bytes and %.1f ms each on average, slowest %.1f ms\n",
               n, f, n ? b / n : 0, n ? t / n * 1000 : 0, m * 1000 }' "$results/scrapes.txt" >>"$results/report.txt"
fi
echo
cat "$results/report.txt"
echo
echo "raw outputs and broker logs: $results"
exit $status
