#!/usr/bin/env bash
# bench/roll-tail.sh: does a segment roll stretch kaas's acks=1 tail? One kaas (pinned to cpu 1, the
# load to cpu 0, as run.sh pins), one partition per topic, acks=1 at a fixed rate, alternating a
# topic that rolls (segment.bytes=ROLL_SEGMENT_BYTES) with one that never does in these runs (1 GiB).
# A roll fsyncs the old segment under the partition lock (Partition.roll); Apache flushes it in the
# background. Prints each run's ProducerPerformance percentiles and the broker's longest GC pauses.
#
#   bench/roll-tail.sh      # needs the bench module and kaas built (bench/run.sh builds both)
#
# Tunables: ROLL_RECORDS (240000), ROLL_RATE (8000 records/s), ROLL_SEGMENT_BYTES (67108864), ROLL_PAIRS (2)
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
RECORDS=${ROLL_RECORDS:-240000}
RATE=${ROLL_RATE:-8000}
SEGMENT=${ROLL_SEGMENT_BYTES:-67108864}
PAIRS=${ROLL_PAIRS:-2}
BOOTSTRAP=127.0.0.1:39592
bench_jar="$(ls "$here"/target/kaas-bench-*.jar 2>/dev/null | head -1)"
[[ -n "$bench_jar" ]] || { echo "build the bench module first (mvn -f bench/pom.xml package)" >&2; exit 2; }
CP="$here/.apache/lib/*:$bench_jar"
work="$(mktemp -d "${TMPDIR:-/tmp}/kaas-roll.XXXXXX")"

KAAS_JAVA_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Xlog:gc:file=$work/gc.log" \
    taskset -c 1 "$repo/bin/kaas" serve --listeners "PLAINTEXT://$BOOTSTRAP" --data-dir "$work/data" \
    --admin-listener none >"$work/kaas.log" 2>&1 &
kaas_pid=$!
cleanup() {
    kill -TERM "$kaas_pid" 2>/dev/null || true
    wait "$kaas_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

java -cp "$CP" io.kaas.bench.AwaitBroker "$BOOTSTRAP" 60 >/dev/null
java -cp "$CP" io.kaas.bench.CreateTopics "$BOOTSTRAP" noroll:1:flush.messages=1000000000 \
    "roll:1:flush.messages=1000000000,segment.bytes=$SEGMENT" >/dev/null 2>&1

echo "kaas acks=1, 1 partition, $RATE records/s of 1 KiB, $RECORDS records per run, $(date -u '+%Y-%m-%d %H:%M UTC')"
for _ in $(seq 1 "$PAIRS"); do
    for topic in noroll roll; do
        line=$(taskset -c 0 java -Xmx512m -XX:TieredStopAtLevel=1 -cp "$CP" org.apache.kafka.tools.ProducerPerformance \
            --bootstrap-server "$BOOTSTRAP" --topic "$topic" --num-records "$RECORDS" --warmup-records "$((RECORDS / 6))" \
            --record-size 1024 --throughput "$RATE" --command-property acks=1 2>&1 | tail -1)
        segments=$(find "$work/data/$topic" -name '*.log' | wc -l)
        printf '%-7s segments so far %-3s load %-6s %s\n' "$topic" "$segments" "$(cut -d' ' -f1 /proc/loadavg)" \
            "$(grep -o '[0-9.]* ms max latency.*' <<<"$line")"
    done
done
echo "longest GC pauses: $(grep Pause "$work/gc.log" | awk '{print $NF}' | sort -n | tail -3 | tr '\n' ' ')"
