#!/usr/bin/env bash
# A stand-in for `bin/kaas` that serves Apache Kafka instead, for an A/A check of the harness:
#
#   BENCH_KAAS_LAUNCHER=bench/aa-launcher.sh bench/run.sh
#
# measures Apache Kafka against itself, so every kaas/apache ratio should come out near 1.00x;
# how far they stray is the noise of the machine and the method. It understands only what
# run.sh passes to `kaas serve`, with kaas's meaning:
#   serve --help
#   serve --listeners PLAINTEXT://host:port --data-dir DIR [--flush-interval-messages N]
# The flush interval defaults to 1 as kaas's does (fsync before acknowledging); the controller
# listens on port+1. Needs bench/.apache/lib (run.sh fetches it first).
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
[[ "${1:-}" == serve ]] || { echo "usage: $0 serve [--help] --listeners PLAINTEXT://host:port --data-dir DIR [--flush-interval-messages N]" >&2; exit 2; }
shift
listener="" dir="" flush=1
while (( $# )); do
    case "$1" in
        --help) echo "Apache Kafka standing in for kaas serve (A/A check)"; exit 0 ;;
        --listeners) listener="${2#PLAINTEXT://}"; shift 2 ;;
        --data-dir) dir="$2"; shift 2 ;;
        --flush-interval-messages) flush="$2"; shift 2 ;;
        *) echo "aa-launcher: unknown argument $1" >&2; exit 2 ;;
    esac
done
[[ -n "$listener" && -n "$dir" ]] || { echo "aa-launcher: --listeners and --data-dir are required" >&2; exit 2; }

host="${listener%:*}" port="${listener#*:}"
controller="$host:$((port + 1))"
mkdir -p "$dir/data"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
{
    apache_server_properties "$listener" "$controller" "$listener" "$dir/data"
    echo "log.flush.interval.messages=$flush"
} >"$dir/server.properties"

cp="$here/.apache/lib/*"
log=(-Dlog4j2.configurationFile="$here/log4j2.properties" -Dbench.log.level=INFO)
id="$(new_cluster_id)"
java -Xmx512m "${log[@]}" -Dbench.log.file="$dir/format.log" -cp "$cp" kafka.tools.StorageTool format \
    -t "$id" -c "$dir/server.properties" --standalone >/dev/null
# exec: the pid run.sh holds is the broker's, so its SIGTERM reaches Kafka's clean shutdown.
# shellcheck disable=SC2086 # KAAS_JAVA_OPTS holds several flags, as for bin/kaas
exec java ${KAAS_JAVA_OPTS:-} "${log[@]}" -Dbench.log.file="$dir/server.log" -cp "$cp" kafka.Kafka "$dir/server.properties"
