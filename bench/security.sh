#!/usr/bin/env bash
# bench/security.sh: what TLS + SASL costs. Apache Kafka 4.4.0 and `kaas serve`, each with a
# PLAINTEXT and a SASL_SSL (SCRAM-SHA-512, TLS 1.3) listener, loaded by Apache's ProducerPerformance
# and ConsumerPerformance (1 KiB records, acks=all idempotent producer). Brokers pinned to core 0 and
# the load to core 1 (taskset); the broker's own CPU per record is reported next to the rate.
# Loopback only, ~5 minutes on 2 cores; not part of CI.
#
#   bench/security.sh
#
# Tunables: BENCH_RECORDS=200000 records per run; BENCH_ROUNDS=2 (A B A B); BENCH_SKIP_BUILD=1;
# BENCH_TMP (a real disk); BENCH_BROKER_CPU=0 BENCH_LOAD_CPU=1; BENCH_KAAS_FLUSH=N sets kaas's
# log.flush.interval.messages (default: kaas's own, an fsync per append; Apache never fsyncs on count,
# so BENCH_KAAS_FLUSH=1000000000 compares the TLS paths without kaas's durability cost);
# BENCH_TOOL_C2=1 lets the load JVMs use C2: lib.sh limits them to C1, which has no AES-GCM
# intrinsics, so over SASL_SSL the clients' own TLS, not the broker, sets the rate;
# BENCH_APACHE_FLUSH=N sets Apache's topic flush.messages=N on every measured topic (1: an fsync per
# append, as bench/run.sh's durable rows), so kaas's default and BENCH_APACHE_FLUSH=1 compare
# durable with durable. Each measured topic (1 partition) is created before its run on both brokers.
# Output: the table on stdout and in bench/results/security-<UTC time>/report.txt.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
RECORDS=${BENCH_RECORDS:-200000}
KAAS_FLUSH=${BENCH_KAAS_FLUSH:-}
APACHE_FLUSH=${BENCH_APACHE_FLUSH:-}
ROUNDS=${BENCH_ROUNDS:-2}
BROKER_CPU=${BENCH_BROKER_CPU:-0}
LOAD_CPU=${BENCH_LOAD_CPU:-1}
KAAS_LAUNCHER="$repo/bin/kaas"
# Ports of their own: bench/run.sh's may be in use by another run on the same machine.
APACHE_BOOTSTRAP=127.0.0.1:19292
APACHE_CONTROLLER=127.0.0.1:19293
APACHE_SECURE=127.0.0.1:19295
KAAS_BOOTSTRAP=127.0.0.1:29292
KAAS_SECURE=127.0.0.1:29295
PASSWORD=bench-Secret-1

# shellcheck source=bench/lib.sh
source "$here/lib.sh"
new_run security- kaas-security-bench
[[ -z "${BENCH_TOOL_C2:-}" ]] || TOOL_JVM=(-Xmx512m)
apache_pid=""
kaas_pid=""
cleanup() {
    stop_pid "$kaas_pid" kaas
    stop_pid "$apache_pid" "Apache Kafka"
    rm -rf "$work"
}
trap cleanup EXIT

command -v taskset >/dev/null || die "taskset (util-linux) is needed to pin brokers and load"
for address in "$APACHE_BOOTSTRAP" "$APACHE_CONTROLLER" "$APACHE_SECURE" "$KAAS_BOOTSTRAP" "$KAAS_SECURE"; do
    ! port_in_use "$address" || die "$address is in use (another benchmark?): a broker there would be measured instead"
done
build_bench
if [[ -z "${BENCH_SKIP_BUILD:-}" ]]; then
    say "building kaas (mvn package -pl cli -am -DskipTests)"
    mvn -B -q -f "$repo/pom.xml" package -DskipTests -pl cli -am >"$results/mvn-kaas.log" 2>&1 || die "kaas build failed"
fi

# TLS: one self-signed key for 127.0.0.1 (PKCS12), trusted by the clients.
tls="$work/tls"; mkdir -p "$tls"
keytool -genkeypair -alias broker -keyalg EC -groupname secp256r1 -dname CN=localhost -ext SAN=ip:127.0.0.1,dns:localhost \
    -validity 2 -storetype PKCS12 -keystore "$tls/broker.p12" -storepass "$PASSWORD" -keypass "$PASSWORD" >/dev/null 2>&1
keytool -exportcert -alias broker -keystore "$tls/broker.p12" -storepass "$PASSWORD" -file "$tls/broker.crt" >/dev/null 2>&1
keytool -importcert -noprompt -alias broker -file "$tls/broker.crt" -storetype PKCS12 -keystore "$tls/trust.p12" \
    -storepass "$PASSWORD" >/dev/null 2>&1
broker_tls() {
    cat <<EOF
ssl.keystore.type=PKCS12
ssl.keystore.location=$tls/broker.p12
ssl.keystore.password=$PASSWORD
ssl.key.password=$PASSWORD
sasl.enabled.mechanisms=SCRAM-SHA-512
EOF
}
cat >"$work/sasl_ssl.properties" <<EOF
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="bench" password="$PASSWORD";
ssl.truststore.type=PKCS12
ssl.truststore.location=$tls/trust.p12
ssl.truststore.password=$PASSWORD
EOF
: >"$work/plaintext.properties"

# Apache: single-node KRaft, PLAINTEXT + SASL_SSL, the user created at format time.
mkdir -p "$work/apache/data"
{
    apache_server_properties "$APACHE_BOOTSTRAP" "$APACHE_CONTROLLER" "$APACHE_BOOTSTRAP" "$work/apache/data" \
        | sed -e "s|^listeners=.*|listeners=PLAINTEXT://$APACHE_BOOTSTRAP,CONTROLLER://$APACHE_CONTROLLER,SASL_SSL://$APACHE_SECURE|" \
              -e "s|^advertised.listeners=.*|advertised.listeners=PLAINTEXT://$APACHE_BOOTSTRAP,SASL_SSL://$APACHE_SECURE|" \
              -e "s|^listener.security.protocol.map=.*|listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL|"
    broker_tls
    echo "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
} >"$work/apache/server.properties"
cp "$work/apache/server.properties" "$results/apache-server.properties"
tool apache-format kafka.tools.StorageTool format -t "$(new_cluster_id)" -c "$work/apache/server.properties" --standalone \
    --add-scram "SCRAM-SHA-512=[name=bench,password=$PASSWORD]" >"$results/apache-format.out" 2>&1 \
    || die "kafka-storage format failed; see $results/apache-format.out"
say "starting Apache Kafka on core $BROKER_CPU"
taskset -c "$BROKER_CPU" java "${BROKER_JVM[@]}" "$LOG_CONFIG" -Dbench.log.level=INFO -Dbench.log.file="$results/apache-server.log" \
    -cp "$CP" kafka.Kafka "$work/apache/server.properties" >"$results/apache-server.out" 2>&1 &
apache_pid=$!
await_broker "Apache Kafka" "$apache_pid" "$APACHE_BOOTSTRAP" || die "Apache Kafka did not start; see $results/apache-server.log"

# kaas: the same listeners from a server.properties, the user added offline.
mkdir -p "$work/kaas/data"
printf '%s\n' "$PASSWORD" | "$KAAS_LAUNCHER" user add bench --data-dir "$work/kaas/data" --mechanism SCRAM-SHA-512 --password-stdin \
    >"$results/kaas-user.out" 2>&1 || die "kaas user add failed; see $results/kaas-user.out"
{
    echo "listeners=PLAINTEXT://$KAAS_BOOTSTRAP,SASL_SSL://$KAAS_SECURE"
    echo "log.dirs=$work/kaas/data"
    [[ -z "$KAAS_FLUSH" ]] || echo "log.flush.interval.messages=$KAAS_FLUSH"
    broker_tls
} >"$work/kaas/server.properties"
cp "$work/kaas/server.properties" "$results/kaas-server.properties"
say "starting kaas serve on core $BROKER_CPU"
KAAS_JAVA_OPTS="${BROKER_JVM[*]}" taskset -c "$BROKER_CPU" "$KAAS_LAUNCHER" serve --config "$work/kaas/server.properties" --admin-listener none \
    >"$results/kaas-server.log" 2>&1 &
kaas_pid=$!
await_broker kaas "$kaas_pid" "$KAAS_BOOTSTRAP" || die "kaas did not start; see $results/kaas-server.log"

pid_of() { [[ $1 == apache ]] && echo "$apache_pid" || echo "$kaas_pid"; }
address_of() { # system listener
    case "$1:$2" in
        apache:plaintext) echo "$APACHE_BOOTSTRAP" ;; apache:sasl_ssl) echo "$APACHE_SECURE" ;;
        kaas:plaintext) echo "$KAAS_BOOTSTRAP" ;; kaas:sasl_ssl) echo "$KAAS_SECURE" ;;
    esac
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
create_topic() { # system topic: 1 partition; on Apache with flush.messages=APACHE_FLUSH when set
    local config=""
    [[ $1 == apache && -n "$APACHE_FLUSH" ]] && config=":flush.messages=$APACHE_FLUSH"
    # On the load core (lib.sh's `tool` pins to its own BENCH_LOAD_CPUS, which is this script's broker core).
    taskset -c "$LOAD_CPU" java "${TOOL_JVM[@]}" "$LOG_CONFIG" -Dbench.log.file="$results/$1-create-topics.log" -cp "$CP" \
        io.kaas.bench.CreateTopics "$(address_of "$1" plaintext)" "$2:1$config" >>"$results/$1-topics.out" 2>&1
}

# One produce run and one consume run of the same records; appends "system listener kind rate cpu_s" to runs.txt.
measure() { # system listener tag records
    local system=$1 listener=$2 tag=$3 n=$4 pid t0 t1 out
    pid="$(pid_of "$system")"
    local topic="bench-$listener-$tag"
    out="$results/$system.$listener.$tag"
    create_topic "$system" "$topic" || { say "$system: creating $topic failed: see $results/$system-topics.out"; return 1; }
    t0="$(cpu_ticks "$pid")"
    taskset -c "$LOAD_CPU" java "${TOOL_JVM[@]}" "$LOG_CONFIG" -Dbench.log.file="$out.produce.log" -cp "$CP" \
        org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$(address_of "$system" "$listener")" --topic "$topic" \
        --num-records "$n" --record-size 1024 --throughput -1 --command-config "$work/$listener.properties" \
        >"$out.produce.out" 2>"$out.produce.err" || { say "$system $listener produce failed: see $out.produce.err"; return 1; }
    t1="$(cpu_ticks "$pid")"
    awk -v s="$system" -v l="$listener" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" '
        /records sent,/ { for (i = 1; i <= NF; i++) if ($i == "records/sec") r = $(i - 1) }
        END { gsub(/[(]/, "", r); printf "%s %s produce %s %.2f\n", s, l, r, (t1 - t0) / hz }' "$out.produce.out" >>"$results/runs.txt"
    t0="$(cpu_ticks "$pid")"
    taskset -c "$LOAD_CPU" java "${TOOL_JVM[@]}" "$LOG_CONFIG" -Dbench.log.file="$out.consume.log" -cp "$CP" \
        org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$(address_of "$system" "$listener")" --topic "$topic" \
        --num-records "$n" --timeout 30000 --command-config "$work/$listener.properties" \
        >"$out.consume.out" 2>"$out.consume.err" || { say "$system $listener consume failed: see $out.consume.err"; return 1; }
    t1="$(cpu_ticks "$pid")"
    awk -F', *' -v s="$system" -v l="$listener" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" '
        h == 1 { r = $10; h = 2 } /^start\.time/ { h = 1 }
        END { printf "%s %s consume %.0f %.2f\n", s, l, r, (t1 - t0) / hz }' "$out.consume.out" >>"$results/runs.txt"
}

say "warm-up (not counted)"
for system in apache kaas; do
    for listener in plaintext sasl_ssl; do
        measure "$system" "$listener" w $((RECORDS / 4)) || true
    done
done
: >"$results/runs.txt"
for round in $(seq 1 "$ROUNDS"); do
    for listener in plaintext sasl_ssl; do
        for system in apache kaas; do
            say "round $round: $system $listener ($RECORDS records)"
            measure "$system" "$listener" "r$round" "$RECORDS" || true
        done
    done
done

{
    echo "kaas vs Apache Kafka 4.4.0, PLAINTEXT and SASL_SSL (SCRAM-SHA-512), 1 KiB records, $RECORDS per run, best of $ROUNDS"
    echo "kaas log.flush.interval.messages: ${KAAS_FLUSH:-kaas default (fsync per append, acks=all durable)}; Apache topic flush.messages: ${APACHE_FLUSH:-its default (no fsync on count)}"
    echo "load JVMs: ${TOOL_JVM[*]}"
    echo "brokers on core $BROKER_CPU, load on core $LOAD_CPU; $(nproc) cores, $(uname -sr), $(java -version 2>&1 | head -1)"
    echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    awk -v n="$RECORDS" '
        { k = $1 " " $2 " " $3; all[k] = all[k] " " $4; if (!(k in best) || $4 > best[k]) { best[k] = $4; cpu[k] = $5 } }
        END {
            printf "%-8s %-10s %-8s %12s %10s %16s\n", "system", "listener", "kind", "records/s", "MB/s", "broker CPU us/rec"
            split("produce consume", kinds, " ")
            for (ki = 1; ki <= 2; ki++) for (li = 1; li <= 2; li++) for (si = 1; si <= 2; si++) {
                l = (li == 1 ? "plaintext" : "sasl_ssl"); s = (si == 1 ? "apache" : "kaas"); k = s " " l " " kinds[ki]
                if (k in best) printf "%-8s %-10s %-8s %12.0f %10.1f %16.1f\n", s, l, kinds[ki], best[k], best[k] * 1024 / 1e6, cpu[k] * 1e6 / n
            }
            for (ki = 1; ki <= 2; ki++) {
                kd = kinds[ki]
                a = best["apache sasl_ssl " kd]; b = best["kaas sasl_ssl " kd]; p = best["kaas plaintext " kd]; ap = best["apache plaintext " kd]
                if (a > 0 && b > 0) printf "%s: kaas/Apache over SASL_SSL %.2fx", kd, b / a
                if (p > 0 && b > 0) printf "; kaas SASL_SSL/PLAINTEXT %.2fx", b / p
                if (ap > 0 && a > 0) printf "; Apache SASL_SSL/PLAINTEXT %.2fx", a / ap
                printf "\n"
            }
            for (ki = 1; ki <= 2; ki++) for (li = 1; li <= 2; li++) for (si = 1; si <= 2; si++) {
                l = (li == 1 ? "plaintext" : "sasl_ssl"); s = (si == 1 ? "apache" : "kaas"); k = s " " l " " kinds[ki]
                if (k in all) printf "every round, %s records/s:%s\n", k, all[k]
            }
        }' "$results/runs.txt"
} | tee "$results/report.txt"
