#!/usr/bin/env bash
# bench/ecosystem.sh: what Apache's tools and clients see of each broker, side by side with Apache Kafka 4.4.0
# on the same machine. Unattended, loopback only, a few minutes on 2 cores; not part of CI.
#
#   bench/ecosystem.sh      # fetch, build, both brokers, three measurements, one table
#
# 1. DescribeConfigs: entries in the Admin answer (default options) for a fresh topic and for the
#    broker, lines of `kafka-configs --describe --all` for both, and the names one broker lists
#    and the other does not.
# 2. Fetch-session request size: one consumer of 1000 partitions (records arriving on ten), its
#    Fetch frames sized on the wire by a proxy (FetchProxy): the first fetch and the average after it.
# 3. Apache's tool scripts: the invocations ApacheToolsIT and TransactionToolsIT run against kaas,
#    plus MetadataQuorumCommand, run in the same order against both; exit code and a check on output.
#
# Tunables (environment): BENCH_TMP (where data dirs go), BENCH_SKIP_BUILD=1, BENCH_KEEP=1,
# BENCH_KAAS_LAUNCHER (default bin/kaas), BENCH_FETCH_SECONDS (15), BENCH_TOOL_TIMEOUT (90 s per tool).
#
# Output: the table on stdout and in bench/results/ecosystem-<UTC time>/report.txt, next to every
# tool's output and both brokers' logs. Exit status: 0 when every measurement ran on every broker
# that started (a tool failing on one broker is a result, not an error), 1 when a measurement could
# not be taken, 2 when setup failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"

TMP_ROOT=${BENCH_TMP:-${TMPDIR:-/tmp}}
FETCH_SECONDS=${BENCH_FETCH_SECONDS:-15}
TOOL_TIMEOUT=${BENCH_TOOL_TIMEOUT:-90}

APACHE_BOOTSTRAP=127.0.0.1:19092
APACHE_CONTROLLER=127.0.0.1:19093
KAAS_BOOTSTRAP=127.0.0.1:29092
# Each broker advertises its proxy, so every connection a client opens after the bootstrap one goes
# through the proxy: the only way to see a consumer's Fetch frames without changing the client.
APACHE_ADVERTISED=127.0.0.1:19094
KAAS_ADVERTISED=127.0.0.1:29094
# kaas answers as node 1, Apache's node.id, so every tool command line is the same for both.
BROKER_ID=1
KAAS_SERVE_EXTRA=(--advertised-listeners "PLAINTEXT://$KAAS_ADVERTISED" --broker-id "$BROKER_ID")
KAAS_LAUNCHER="$(readlink -f "${BENCH_KAAS_LAUNCHER:-$repo/bin/kaas}")"

# shellcheck source=bench/lib.sh
source "$here/lib.sh"
new_run ecosystem- kaas-ecosystem

apache_pid=""
kaas_pid=""
proxy_pid=""
kaas_reason=""
status=0
started=$SECONDS

cleanup() {
    stop_pid "$kaas_pid" kaas
    stop_pid "$apache_pid" "Apache Kafka"
    stop_pid "$proxy_pid" "fetch proxy"
    if [[ -z "${BENCH_KEEP:-}" ]]; then rm -rf "$work"; else say "data kept in $work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for port in $APACHE_BOOTSTRAP $APACHE_CONTROLLER $APACHE_ADVERTISED $KAAS_BOOTSTRAP $KAAS_ADVERTISED; do
    port_in_use "$port" && die "$port is already in use; stop whatever listens there first"
done

build_bench
build_kaas
[[ -n "$kaas_reason" ]] && say "$kaas_reason: measuring Apache Kafka only"

# ---------------------------------------------------------------------------------------------
# Brokers behind the proxy.

say "starting the fetch proxy: $APACHE_ADVERTISED -> $APACHE_BOOTSTRAP, $KAAS_ADVERTISED -> $KAAS_BOOTSTRAP"
java "${TOOL_JVM[@]}" -cp "$CP" io.kaas.bench.FetchProxy "$results/fetch-proxy.log" \
    "${APACHE_ADVERTISED#*:}=$APACHE_BOOTSTRAP" "${KAAS_ADVERTISED#*:}=$KAAS_BOOTSTRAP" \
    >"$results/fetch-proxy.out" 2>&1 &
proxy_pid=$!
for _ in $(seq 1 100); do
    port_in_use "$KAAS_ADVERTISED" && break
    kill -0 "$proxy_pid" 2>/dev/null || die "the fetch proxy exited; see $results/fetch-proxy.out"
    sleep 0.2
done
port_in_use "$KAAS_ADVERTISED" || die "the fetch proxy is not listening after 20 s"

start_apache
if [[ -z "$kaas_reason" ]] && ! start_kaas; then
    kaas_reason="kaas serve did not start; see $results/kaas-server.log"
fi

systems() { echo apache; [[ -n "$kaas_pid" ]] && echo kaas; return 0; }
bootstrap_of() { [[ $1 == apache ]] && echo "$APACHE_BOOTSTRAP" || echo "$KAAS_BOOTSTRAP"; }
proxy_of() { [[ $1 == apache ]] && echo "$APACHE_ADVERTISED" || echo "$KAAS_ADVERTISED"; }
measure_failed() { say "ERROR $*"; status=1; }

# ---------------------------------------------------------------------------------------------
# 1. DescribeConfigs entry counts.

describe_configs() { # system
    local system=$1 bs out="$results/configs.$1"
    bs="$(bootstrap_of "$1")"
    say "$system: DescribeConfigs for a fresh topic and broker $BROKER_ID"
    tool "$system-create-topics" io.kaas.bench.CreateTopics "$bs" cfg-probe:1 fetch-session:1000 >"$out.create.out" 2>&1 \
        || { measure_failed "$system: creating topics failed; see $out.create.out"; return; }
    tool "$system-describe-configs" io.kaas.bench.DescribeConfigsCount "$bs" cfg-probe "$BROKER_ID" "$out" >"$out.admin" 2>&1 \
        || measure_failed "$system: Admin describeConfigs failed; see $out.admin"
    tool "$system-configs-topic" org.apache.kafka.tools.ConfigCommand --bootstrap-server "$bs" --describe --all \
        --entity-type topics --entity-name cfg-probe >"$out.cli.topic" 2>&1 \
        || measure_failed "$system: kafka-configs --describe --all (topic) failed; see $out.cli.topic"
    tool "$system-configs-broker" org.apache.kafka.tools.ConfigCommand --bootstrap-server "$bs" --describe --all \
        --entity-type brokers --entity-name "$BROKER_ID" >"$out.cli.broker" 2>&1 \
        || measure_failed "$system: kafka-configs --describe --all (broker) failed; see $out.cli.broker"
}

# ---------------------------------------------------------------------------------------------
# 2. Fetch-session request size, through the proxy.

fetch_session() { # system
    local system=$1 proxy
    proxy="$(proxy_of "$1")"
    say "$system: one consumer of 1000 partitions for ${FETCH_SECONDS}s, Fetch frames sized by the proxy"
    tool "$system-fetch-session" io.kaas.bench.FetchSessionSize "$proxy" fetch-session 1000 10 "$FETCH_SECONDS" \
        "$results/fetch-proxy.log" "${proxy#*:}" >"$results/fetch.$system" 2>&1 \
        || measure_failed "$system: fetch-session measurement failed; see $results/fetch.$system"
}

# ---------------------------------------------------------------------------------------------
# 3. Apache's tools, the same command lines in the same order on both brokers.

step=0
run_tool() { # system label expect stdin class args...: one tool; "rc<TAB>check" into tools.<system>.tsv
    local system=$1 label=$2 expect=$3 stdin=$4; shift 4
    local out rc=0 check
    step=$((step + 1))
    out="$results/tools.$system/$(printf %02d "$step")-${label// /_}.out"
    timeout "$TOOL_TIMEOUT" java "${TOOL_JVM[@]}" "$LOG_CONFIG" -Dbench.log.file="$out.log" -cp "$CP" "$@" \
        <"$stdin" >"$out" 2>&1 || rc=$?
    if [[ -z "$expect" ]]; then check="-"
    elif grep -qF -- "$expect" "$out"; then check="ok"
    else check="lacks '$expect'"
    fi
    (( rc == 124 )) && check="timed out after ${TOOL_TIMEOUT}s"
    printf '%s\t%s\t%s\t%s\n' "$step" "$label" "$rc" "$check" >>"$results/tools.$system.tsv"
}

tools() { # system
    local system=$1 bs lines partition
    bs="$(bootstrap_of "$1")"
    step=0
    mkdir -p "$results/tools.$system"
    : >"$results/tools.$system.tsv"
    say "$system: Apache's tools"
    seq 0 29 | sed 's/^/line-/' >"$work/lines.txt"
    local t=org.apache.kafka.tools none=/dev/null
    run_tool "$system" "TopicCommand --create" "Created topic tools" $none $t.TopicCommand --bootstrap-server "$bs" --create --topic tools --partitions 2
    run_tool "$system" "TopicCommand --list" "tools" $none $t.TopicCommand --bootstrap-server "$bs" --list
    run_tool "$system" "TopicCommand --alter --partitions" "" $none $t.TopicCommand --bootstrap-server "$bs" --alter --topic tools --partitions 3
    run_tool "$system" "TopicCommand --describe" "PartitionCount: 3" $none $t.TopicCommand --bootstrap-server "$bs" --describe --topic tools
    run_tool "$system" "ConsoleProducer" "" "$work/lines.txt" $t.ConsoleProducer --bootstrap-server "$bs" --topic tools
    run_tool "$system" "ConsoleConsumer --group" "Processed a total of 30 messages" $none $t.consumer.ConsoleConsumer --bootstrap-server "$bs" \
        --topic tools --from-beginning --max-messages 30 --group console-group --timeout-ms 30000
    run_tool "$system" "ConsumerGroupCommand --describe" "console-group" $none $t.consumer.group.ConsumerGroupCommand --bootstrap-server "$bs" \
        --describe --group console-group
    run_tool "$system" "ConsumerGroupCommand --list" "console-group" $none $t.consumer.group.ConsumerGroupCommand --bootstrap-server "$bs" --list
    run_tool "$system" "ConsumerGroupCommand --reset-offsets" "tools" $none $t.consumer.group.ConsumerGroupCommand --bootstrap-server "$bs" \
        --reset-offsets --group console-group --topic tools --to-earliest --execute
    run_tool "$system" "GetOffsetShell" "tools:" $none $t.GetOffsetShell --bootstrap-server "$bs" --topic tools
    # The console producer's sticky partitioner may leave partitions empty: delete in the fullest one.
    lines="$(ls "$results/tools.$system/"*GetOffsetShell.out)"
    partition="$(awk -F: '/^tools:/ && $3 > m { m = $3; p = $2 } END { print p + 0 }' "$lines")"
    printf '{"partitions":[{"topic":"tools","partition":%s,"offset":2}],"version":1}\n' "$partition" >"$work/delete-$system.json"
    run_tool "$system" "DeleteRecordsCommand" "low_watermark: 2" $none $t.DeleteRecordsCommand --bootstrap-server "$bs" \
        --offset-json-file "$work/delete-$system.json"
    run_tool "$system" "GetOffsetShell --time -2" "tools:$partition:2" $none $t.GetOffsetShell --bootstrap-server "$bs" --topic tools \
        --partitions "$partition" --time -2

    run_tool "$system" "TopicCommand --create cfg" "" $none $t.TopicCommand --bootstrap-server "$bs" --create --topic cfg --partitions 1
    run_tool "$system" "ConfigCommand --alter --add-config" "" $none $t.ConfigCommand --bootstrap-server "$bs" --alter --entity-type topics \
        --entity-name cfg --add-config retention.ms=60000,segment.bytes=1048576
    run_tool "$system" "ConfigCommand --describe" "retention.ms=60000" $none $t.ConfigCommand --bootstrap-server "$bs" --describe \
        --entity-type topics --entity-name cfg
    run_tool "$system" "ConfigCommand --alter --delete-config" "" $none $t.ConfigCommand --bootstrap-server "$bs" --alter --entity-type topics \
        --entity-name cfg --delete-config retention.ms
    run_tool "$system" "ConfigCommand --describe --all topic" "segment.bytes=1048576 sensitive=false" $none $t.ConfigCommand \
        --bootstrap-server "$bs" --describe --all --entity-type topics --entity-name cfg
    run_tool "$system" "ConfigCommand --describe --all broker" "log.retention.hours=168" $none $t.ConfigCommand \
        --bootstrap-server "$bs" --describe --all --entity-type brokers --entity-name "$BROKER_ID"
    run_tool "$system" "BrokerApiVersionsCommand" "ApiVersions(18)" $none $t.BrokerApiVersionsCommand --bootstrap-server "$bs"

    run_tool "$system" "VerifiableProducer" '"acked":200' $none $t.VerifiableProducer --bootstrap-server "$bs" --topic verified \
        --max-messages 200 --acks -1
    run_tool "$system" "VerifiableConsumer" '"name":"offsets_committed"' $none $t.VerifiableConsumer --bootstrap-server "$bs" \
        --topic verified --group-id verifiers --max-messages 200 --reset-policy earliest

    run_tool "$system" "TopicCommand --create perf" "" $none $t.TopicCommand --bootstrap-server "$bs" --create --topic perf --partitions 2
    run_tool "$system" "ProducerPerformance" "2000 records sent" $none $t.ProducerPerformance --topic perf --num-records 2000 \
        --record-size 100 --throughput -1 --bootstrap-server "$bs" --command-property acks=all
    run_tool "$system" "ConsumerPerformance" "" $none $t.ConsumerPerformance --bootstrap-server "$bs" --topic perf \
        --num-records 2000 --group perf-group --timeout 30000
    run_tool "$system" "EndToEndLatency" "Avg latency" $none $t.EndToEndLatency --bootstrap-server "$bs" --topic perf \
        --num-records 100 --producer-acks all --record-size 100
    run_tool "$system" "ProducerPerformance --transactional-id" "2000 records sent" $none $t.ProducerPerformance --topic perf-txn \
        --num-records 2000 --record-size 100 --throughput -1 --transactional-id perf --transaction-duration-ms 100 \
        --producer-props "bootstrap.servers=$bs" acks=all

    run_tool "$system" "GetOffsetShell --time -3" "perf:" $none $t.GetOffsetShell --bootstrap-server "$bs" --topic perf --time -3
    run_tool "$system" "GetOffsetShell --time -4" "perf:" $none $t.GetOffsetShell --bootstrap-server "$bs" --topic perf --time -4
    run_tool "$system" "LogDirsCommand --describe" '"partition":"perf-0"' $none $t.LogDirsCommand --bootstrap-server "$bs" \
        --describe --topic-list perf
    run_tool "$system" "FeatureCommand describe" "Feature: metadata.version" $none $t.FeatureCommand --bootstrap-server "$bs" describe
    run_tool "$system" "ClusterTool cluster-id" "Cluster ID: " $none $t.ClusterTool cluster-id --bootstrap-server "$bs"
    run_tool "$system" "GroupsCommand --list" "perf-group" $none $t.GroupsCommand --bootstrap-server "$bs" --list
    run_tool "$system" "TopicCommand --create app-store-changelog" "" $none $t.TopicCommand --bootstrap-server "$bs" --create \
        --topic app-store-changelog --partitions 1
    run_tool "$system" "StreamsResetter --to-earliest" "app-store-changelog" $none $t.StreamsResetter --bootstrap-server "$bs" \
        --application-id app --input-topics perf --to-earliest
    run_tool "$system" "ConsumerGroupCommand --delete-offsets" "Successful" $none $t.consumer.group.ConsumerGroupCommand \
        --bootstrap-server "$bs" --delete-offsets --group perf-group --topic perf
    run_tool "$system" "ConsumerGroupCommand --delete" "was successful" $none $t.consumer.group.ConsumerGroupCommand \
        --bootstrap-server "$bs" --delete --group console-group

    run_tool "$system" "TransactionsCommand list" "perf" $none $t.TransactionsCommand --bootstrap-server "$bs" list
    run_tool "$system" "TransactionsCommand describe" "CompleteCommit" $none $t.TransactionsCommand --bootstrap-server "$bs" describe \
        --transactional-id perf
    run_tool "$system" "TransactionsCommand describe-producers" "ProducerId" $none $t.TransactionsCommand --bootstrap-server "$bs" \
        describe-producers --topic perf-txn --partition 0
    run_tool "$system" "TransactionsCommand find-hanging" "" $none $t.TransactionsCommand --bootstrap-server "$bs" find-hanging \
        --broker-id "$BROKER_ID"
    run_tool "$system" "MetadataQuorumCommand describe --status" "LeaderId" $none $t.MetadataQuorumCommand --bootstrap-server "$bs" \
        describe --status
    run_tool "$system" "MetadataQuorumCommand describe --replication" "NodeId" $none $t.MetadataQuorumCommand --bootstrap-server "$bs" \
        describe --replication

    run_tool "$system" "TopicCommand --delete" "" $none $t.TopicCommand --bootstrap-server "$bs" --delete --topic tools
}

for system in $(systems); do
    describe_configs "$system"
    fetch_session "$system"
    tools "$system"
done

stop_pid "$kaas_pid" kaas; kaas_pid=""
stop_pid "$apache_pid" "Apache Kafka"; apache_pid=""
stop_pid "$proxy_pid" "fetch proxy"; proxy_pid=""

# ---------------------------------------------------------------------------------------------
# The table.

admin_count() { awk -v k="$2" '$1 == k { print $2 }' "$results/configs.$1.admin" 2>/dev/null || true; }
cli_lines() { [[ -f "$results/configs.$1.cli.$2" ]] && wc -l <"$results/configs.$1.cli.$2" || true; }
cli_entries() { [[ -f "$results/configs.$1.cli.$2" ]] && grep -c ' sensitive=' "$results/configs.$1.cli.$2" || true; }
fetch_field() { sed -n "s/.* $2=\\([^ ]*\\).*/\\1/p" "$results/fetch.$1" 2>/dev/null || true; }
value() { local v; v="$("$@")"; echo "${v:--}"; }
only_in() { # a b kind: names in a's answer and not in b's, comma-separated
    local a="$results/configs.$1.$3.names" b="$results/configs.$2.$3.names"
    [[ -f "$a" && -f "$b" ]] || { echo "-"; return; }
    local names; names="$(comm -23 "$a" "$b" | paste -sd, - | sed 's/,/, /g')"
    echo "($(comm -23 "$a" "$b" | wc -l)) ${names:-}"
}

{
    echo "kaas vs Apache Kafka 4.4.0: $(date -u '+%Y-%m-%d %H:%M UTC'), kaas at commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "host: $(nproc) cores, $(uname -sr), $(java -version 2>&1 | head -1); both brokers on loopback, behind FetchProxy"
    [[ -n "$kaas_reason" ]] && echo "kaas: $kaas_reason"
    echo
    echo "1. DescribeConfigs (fresh topic cfg-probe, 1 partition; broker $BROKER_ID)"
    printf '   %-52s %10s %10s\n' "" apache kaas
    printf '   %-52s %10s %10s\n' "Admin describeConfigs entries, topic" "$(value admin_count apache topic)" "$(value admin_count kaas topic)"
    printf '   %-52s %10s %10s\n' "kafka-configs --describe --all lines, topic" "$(value cli_lines apache topic)" "$(value cli_lines kaas topic)"
    printf '   %-52s %10s %10s\n' "  of which config entries" "$(value cli_entries apache topic)" "$(value cli_entries kaas topic)"
    printf '   %-52s %10s %10s\n' "Admin describeConfigs entries, broker" "$(value admin_count apache broker)" "$(value admin_count kaas broker)"
    printf '   %-52s %10s %10s\n' "kafka-configs --describe --all lines, broker" "$(value cli_lines apache broker)" "$(value cli_lines kaas broker)"
    printf '   %-52s %10s %10s\n' "  of which config entries" "$(value cli_entries apache broker)" "$(value cli_entries kaas broker)"
    echo "   topic names only Apache lists: $(only_in apache kaas topic)"
    echo "   topic names only kaas lists:   $(only_in kaas apache topic)"
    echo "   broker names only Apache lists: $(only_in apache kaas broker)" | fold -s -w 110 | sed '2,$s/^/      /'
    echo "   broker names only kaas lists:   $(only_in kaas apache broker)" | fold -s -w 110 | sed '2,$s/^/      /'
    echo
    echo "2. Fetch-session request size (1 consumer, 1 topic x 1000 partitions, records on 10, ${FETCH_SECONDS}s, client defaults)"
    printf '   %-52s %10s %10s\n' "" apache kaas
    printf '   %-52s %10s %10s\n' "Fetch version" "$(value fetch_field apache fetch_version)" "$(value fetch_field kaas fetch_version)"
    printf '   %-52s %10s %10s\n' "Fetch requests" "$(value fetch_field apache requests)" "$(value fetch_field kaas requests)"
    printf '   %-52s %10s %10s\n' "first Fetch, bytes" "$(value fetch_field apache first_bytes)" "$(value fetch_field kaas first_bytes)"
    printf '   %-52s %10s %10s\n' "after the first, average bytes per Fetch" "$(value fetch_field apache after_avg_bytes)" "$(value fetch_field kaas after_avg_bytes)"
    printf '   %-52s %10s %10s\n' "after the first, largest Fetch, bytes" "$(value fetch_field apache after_max_bytes)" "$(value fetch_field kaas after_max_bytes)"
    printf '   %-52s %10s %10s\n' "records consumed" "$(value fetch_field apache records)" "$(value fetch_field kaas records)"
    echo
    echo "3. Apache's tools, the same command lines in order (exit code; output check)"
    printf '   %-3s %-44s %-14s %s\n' "#" tool apache kaas
    while IFS=$'\t' read -r n label rc check; do
        k="$(awk -F'\t' -v n="$n" '$1 == n { printf "%s; %s", $3, $4 }' "$results/tools.kaas.tsv" 2>/dev/null || true)"
        printf '   %-3s %-44s %-14s %s\n' "$n" "$label" "$rc; $check" "${k:--}"
    done <"$results/tools.apache.tsv"
    tally() { # system: "<exit 0>/<all> exit 0, <ok>/<checked> output checks ok"
        [[ -f "$results/tools.$1.tsv" ]] || { echo "-"; return; }
        awk -F'\t' '{ n++; z += ($3 == 0); if ($4 != "-") { c++; o += ($4 == "ok") } }
                     END { printf "%d/%d exit 0, %d/%d output checks ok", z, n, o, c }' "$results/tools.$1.tsv"
    }
    echo "   apache: $(tally apache); kaas: $(tally kaas)"
    echo
    echo "bytes are whole frames on the wire (size prefix included); run took $((SECONDS - started)) s"
} >"$results/report.txt"

echo
cat "$results/report.txt"
echo
echo "raw outputs and broker logs: $results"
exit $status
