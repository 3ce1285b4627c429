#!/usr/bin/env bash
# bench/connections.sh: ten thousand connections on one broker. `kaas serve` with a PLAINTEXT and a SASL_SSL
# (SCRAM-SHA-512, TLS) listener takes CONN_PRODUCERS connections producing acks=all at CONN_RATE requests a
# second each, CONN_FETCHERS long-polling Fetch on a topic nobody writes and CONN_IDLE that only said
# ApiVersions, all from one load JVM (io.kaas.bench.ConnectionLoad: raw requests on Netty) pinned to the other
# core; holds them CONN_HOLD_SECONDS; then a reconnect storm of CONN_STORM_RATE connections a second for
# CONN_STORM_SECONDS, over PLAINTEXT and then over SASL_SSL (TLS handshake, SCRAM login, ApiVersions, close).
# Then Apache Kafka 4.4 (KRaft combined mode, one node) the same way, side by side. Loopback only, unattended;
# not part of CI (its CI size is broker/src/test/java/io/kaas/broker/ManyConnectionsIT.java).
#
#   bench/connections.sh
#
# Reported per broker: connections established and held, errors, produce p50/p99/p99.9, the storms' achieved
# rate and connect p99, and the broker's footprint with the connections held against its baseline before
# any: heap (in use, and live after a full GC), NMT "Other" (direct buffers; both brokers run with
# -XX:NativeMemoryTracking=summary), RSS and open descriptors. Tunables (environment):
#   CONN_PRODUCERS=1000 CONN_FETCHERS=4500 CONN_IDLE=4500   the 10,000 connections
#   CONN_RATE=1                    Produce requests a second per producing connection (acks=all, one 100 B record)
#   CONN_FETCH_WAIT_MS=5000        the long-poll's max_wait_ms
#   CONN_CONNECT_RATE=1000         new connections a second while ramping up
#   CONN_HOLD_SECONDS=60           how long they are held (produce latencies are from this window)
#   CONN_STORM_RATE=1000 CONN_STORM_SECONDS=10   offered; at most CONN_STORM_IN_FLIGHT=200 opening at once,
#                                  CONN_TLS_STORM_IN_FLIGHT=50 over SASL_SSL (a handshake costs both sides ms of CPU)
#   CONN_LOAD_THREADS=1            the load JVM's event loops
#   CONN_SYSTEMS="kaas apache"     which brokers to run, one after the other
#   CONN_TMP=${TMPDIR:-/tmp}       where the data dirs go
#   BENCH_SKIP_BUILD=1             use the built cli/target/lib/ and bench jar
#
# Output: a table on stdout and in bench/results/connections-<UTC time>/report.txt, with each run's raw
# figures (*.out) and the brokers' logs. Exit 0 when kaas held every connection with no error and got
# through both storms, 1 when not, 2 when setup failed. Apache's figures are reported, not judged.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"

PRODUCERS=${CONN_PRODUCERS:-1000}
FETCHERS=${CONN_FETCHERS:-4500}
IDLE=${CONN_IDLE:-4500}
RATE=${CONN_RATE:-1}
FETCH_WAIT_MS=${CONN_FETCH_WAIT_MS:-5000}
CONNECT_RATE=${CONN_CONNECT_RATE:-1000}
HOLD_SECONDS=${CONN_HOLD_SECONDS:-60}
STORM_RATE=${CONN_STORM_RATE:-1000}
STORM_SECONDS=${CONN_STORM_SECONDS:-10}
STORM_IN_FLIGHT=${CONN_STORM_IN_FLIGHT:-200}
TLS_STORM_IN_FLIGHT=${CONN_TLS_STORM_IN_FLIGHT:-50}
LOAD_THREADS=${CONN_LOAD_THREADS:-1}
SYSTEMS=${CONN_SYSTEMS:-kaas apache}
TMP_ROOT=${CONN_TMP:-${TMPDIR:-/tmp}}
PASSWORD=connections-bench
# Below Linux's ephemeral range (32768-60999): the storms' tens of thousands of client ports must not take
# the port a broker is about to bind.
KAAS_BOOTSTRAP=127.0.0.1:18492
KAAS_SECURE=127.0.0.1:18493
APACHE_BOOTSTRAP=127.0.0.1:28492
APACHE_SECURE=127.0.0.1:28493
APACHE_CONTROLLER=127.0.0.1:28494
KAAS_LAUNCHER=${KAAS_LAUNCHER:-$repo/bin/kaas}
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

new_run connections- kaas-connections
apache_pid=""
kaas_pid=""
trap stop_brokers_and_clean EXIT
trap 'exit 130' INT TERM

# Both brokers and the load JVM hold one descriptor per connection (plus the storm's): as many as allowed.
ulimit -n "$(ulimit -Hn)"
(( $(ulimit -n) >= PRODUCERS + FETCHERS + IDLE + 2000 )) \
    || die "ulimit -n $(ulimit -n) is too low for $((PRODUCERS + FETCHERS + IDLE)) connections"
require_free_ports "$KAAS_BOOTSTRAP" "$KAAS_SECURE" "$APACHE_BOOTSTRAP" "$APACHE_SECURE" "$APACHE_CONTROLLER"
build_bench
kaas_reason=""
build_kaas
BROKER_JVM+=(-XX:NativeMemoryTracking=summary)

tls="$work/tls"; mkdir -p "$tls"
keytool -genkeypair -alias broker -keyalg EC -groupname secp256r1 -dname CN=localhost -ext SAN=ip:127.0.0.1,dns:localhost \
    -validity 2 -storetype PKCS12 -keystore "$tls/broker.p12" -storepass "$PASSWORD" -keypass "$PASSWORD" >/dev/null 2>&1
broker_tls() {
    cat <<EOF
ssl.keystore.type=PKCS12
ssl.keystore.location=$tls/broker.p12
ssl.keystore.password=$PASSWORD
ssl.key.password=$PASSWORD
sasl.enabled.mechanisms=SCRAM-SHA-512
EOF
}

start_apache_secured() {
    mkdir -p "$work/apache/data"
    {
        apache_server_properties "$APACHE_BOOTSTRAP" "$APACHE_CONTROLLER" "$APACHE_BOOTSTRAP" "$work/apache/data" \
            | sed -e "s|^listeners=.*|listeners=PLAINTEXT://$APACHE_BOOTSTRAP,CONTROLLER://$APACHE_CONTROLLER,SASL_SSL://$APACHE_SECURE|" \
                  -e "s|^advertised.listeners=.*|advertised.listeners=PLAINTEXT://$APACHE_BOOTSTRAP,SASL_SSL://$APACHE_SECURE|" \
                  -e "s|^listener.security.protocol.map=.*|listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL|"
        broker_tls
        echo "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
    } >"$work/apache/server.properties"
    say "Apache Kafka's SASL_SSL listener: $APACHE_SECURE"
    launch_apache "$work/apache/server.properties" --add-scram "SCRAM-SHA-512=[name=bench,password=$PASSWORD]"
}

start_kaas_secured() {
    mkdir -p "$work/kaas/data"
    printf '%s\n' "$PASSWORD" | "$KAAS_LAUNCHER" user add bench --data-dir "$work/kaas/data" --mechanism SCRAM-SHA-512 \
        --password-stdin >"$results/kaas-user.out" 2>&1 || die "kaas user add failed; see $results/kaas-user.out"
    {
        echo "listeners=PLAINTEXT://$KAAS_BOOTSTRAP,SASL_SSL://$KAAS_SECURE"
        echo "log.dirs=$work/kaas/data"
        broker_tls
    } >"$work/kaas/server.properties"
    cp "$work/kaas/server.properties" "$results/kaas-server.properties"
    say "starting kaas serve on $KAAS_BOOTSTRAP and $KAAS_SECURE"
    KAAS_JAVA_OPTS="$(broker_jvm kaas)" ${PIN_BROKER[@]+"${PIN_BROKER[@]}"} "$KAAS_LAUNCHER" serve \
        --config "$work/kaas/server.properties" --admin-listener none >"$results/kaas-server.log" 2>&1 &
    kaas_pid=$!
    await_broker kaas "$kaas_pid" "$KAAS_BOOTSTRAP" || die "kaas did not start; see $results/kaas-server.log"
}

load() { # name mode args...: one ConnectionLoad run, its key-value lines into $results/<name>.out
    local name=$1; shift
    say "$name: ConnectionLoad $*"
    # The load JVM runs C2: unlike the short perf tools it runs for minutes, and its event loop is the bottleneck.
    ${PIN_LOAD[@]+"${PIN_LOAD[@]}"} java -Xmx1g "$LOG_CONFIG" -Dbench.log.file="$results/$name.log" -cp "$CP" \
        io.kaas.bench.ConnectionLoad "$@" >"$results/$name.out" 2>"$results/$name.err" || true
}

field() { awk -v k="$2" '$1 == k { print $2 }' "$results/$1.out" | head -1; }
errors() { awk '$1 ~ /^error_/ { n += $2 } END { print n + 0 }' "$results/$1.out"; }

run_system() { # kaas|apache
    local sys=$1 plain secure pid
    if [[ $sys == kaas ]]; then
        start_kaas_secured; plain=$KAAS_BOOTSTRAP; secure=$KAAS_SECURE; pid=$kaas_pid
    else
        start_apache_secured; plain=$APACHE_BOOTSTRAP; secure=$APACHE_SECURE; pid=$apache_pid
    fi
    tool "$sys-topics" io.kaas.bench.CreateTopics "$plain" connections:8 connections-quiet:1 >"$results/$sys-topics.out" 2>&1 \
        || die "$sys: creating the topics failed; see $results/$sys-topics.out"
    uptime >"$results/$sys-uptime-before.txt"
    load "$sys-baseline" footprint --broker-pid "$pid"
    load "$sys-hold" hold --bootstrap "$plain" --producers "$PRODUCERS" --fetchers "$FETCHERS" --idle "$IDLE" \
        --rate "$RATE" --partitions 8 --fetch-wait-ms "$FETCH_WAIT_MS" --connect-rate "$CONNECT_RATE" \
        --seconds "$HOLD_SECONDS" --threads "$LOAD_THREADS" --broker-pid "$pid"
    uptime >"$results/$sys-uptime-hold.txt"
    load "$sys-storm-plaintext" storm --bootstrap "$plain" --rate "$STORM_RATE" --seconds "$STORM_SECONDS" \
        --max-in-flight "$STORM_IN_FLIGHT" --threads "$LOAD_THREADS"
    load "$sys-storm-sasl-ssl" storm --bootstrap "$secure" --rate "$STORM_RATE" --seconds "$STORM_SECONDS" \
        --max-in-flight "$TLS_STORM_IN_FLIGHT" --threads "$LOAD_THREADS" --tls --user bench --password "$PASSWORD"
    if kill -0 "$pid" 2>/dev/null && tool "$sys-after" io.kaas.bench.AwaitBroker "$plain" 30 >/dev/null 2>&1; then
        echo up >"$results/$sys-alive.txt"
    else
        echo down >"$results/$sys-alive.txt"
    fi
    if [[ $sys == kaas ]]; then stop_pid "$kaas_pid" kaas; kaas_pid=""; else stop_pid "$apache_pid" "Apache Kafka"; apache_pid=""; fi
}

row() { # kaas|apache: one line of the table
    local s=$1
    printf '| %s | %s/%s | %s | %s / %s / %s | %s -> %s | %s -> %s | %s -> %s | %s -> %s | %s (%s err) | %s (%s err) | %s | %s |\n' \
        "$s" "$(field "$s-hold" connections_held)" "$(field "$s-hold" connections_wanted)" "$(errors "$s-hold")" \
        "$(field "$s-hold" produce_p50_ms)" "$(field "$s-hold" produce_p99_ms)" "$(field "$s-hold" produce_p999_ms)" \
        "$(field "$s-baseline" broker_heap_live_mib)" "$(field "$s-hold" broker_heap_live_mib)" \
        "$(field "$s-baseline" broker_nmt_other_mib)" "$(field "$s-hold" broker_nmt_other_mib)" \
        "$(field "$s-baseline" broker_rss_mib)" "$(field "$s-hold" broker_rss_mib)" \
        "$(field "$s-baseline" broker_fds)" "$(field "$s-hold" broker_fds)" \
        "$(field "$s-storm-plaintext" storm_connections_per_s)" "$(errors "$s-storm-plaintext")" \
        "$(field "$s-storm-sasl-ssl" storm_connections_per_s)" "$(errors "$s-storm-sasl-ssl")" \
        "$(cat "$results/$s-alive.txt" 2>/dev/null)" "$(awk -F'load average: ' '{print $2}' "$results/$s-uptime-hold.txt" 2>/dev/null)"
}

[[ -z "$kaas_reason" ]] || { [[ " $SYSTEMS " != *" kaas "* ]] || die "$kaas_reason"; }
for sys in $SYSTEMS; do
    run_system "$sys"
done

{
    echo "connections: $PRODUCERS producing (acks=all, $RATE/s each), $FETCHERS long-polling Fetch (max_wait ${FETCH_WAIT_MS} ms), $IDLE idle;"
    echo "held ${HOLD_SECONDS} s; storms of $STORM_RATE connections/s for $STORM_SECONDS s; heap/direct/RSS/fds: baseline -> held; MiB"
    echo
    echo "| broker | held | errors | produce p50 / p99 / p99.9 ms | live heap | NMT Other (direct) | RSS | fds | storm PLAINTEXT /s | storm SASL_SSL /s | alive after | load (1/5/15 min) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for sys in $SYSTEMS; do row "$sys"; done
} | tee "$results/report.txt"

if [[ " $SYSTEMS " == *" kaas "* ]]; then
    [[ "$(field kaas-hold connections_held)" == "$((PRODUCERS + FETCHERS + IDLE))" && "$(errors kaas-hold)" == 0 \
        && "$(errors kaas-storm-plaintext)" == 0 && "$(errors kaas-storm-sasl-ssl)" == 0 \
        && "$(cat "$results/kaas-alive.txt")" == up ]] || exit 1
fi
