# bench/lib.sh: what the bench scripts share, sourced by each of them (run.sh, aa-launcher.sh, cat.sh,
# cleaner.sh, connections.sh, ecosystem.sh, failover.sh, move.sh, scale.sh, security.sh, share.sh, startup.sh,
# txn.sh): logging, stopping a pid, running a tool JVM, checking ports, cleaning up, and starting Apache Kafka
# and `kaas serve` on loopback. One home, so every script starts the brokers with the same flags.
#
# The caller sets here, repo and TMP_ROOT before sourcing, then calls new_run and build_bench (or
# bench_classpath, which only finds what is built; both set CP), and sets APACHE_BOOTSTRAP,
# APACHE_CONTROLLER, KAAS_BOOTSTRAP, KAAS_LAUNCHER and the globals apache_pid and kaas_pid. Optional:
#   APACHE_ADVERTISED     host:port Apache tells clients to use (default APACHE_BOOTSTRAP)
#   KAAS_SERVE_EXTRA      array of further `kaas serve` arguments
#   BENCH_CP              a class path to use instead of bench/.apache/lib and the bench jar: it must hold
#                         what the script runs (Apache's tools, and the bench helpers such as AwaitBroker)

# Same heap and collector for both brokers: what Apache's kafka-server-start.sh uses. A fixed set of
# JIT compiler threads (the JVM otherwise starts and stops them as it likes), so that run.sh can count
# the CPU the JIT compilers used by their threads' ticks, which a thread that exited would take away.
BROKER_JVM=(-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
            -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true -XX:-UseDynamicNumberOfCompilerThreads)
# Load JVMs compile with C1 only. They are short-lived: on two cores four producer JVMs used 26-29
# CPU-s per 400k records with C2 and 15-19 with C1, a difference (mostly compiling) larger than what
# either broker used for the same records (3-5 s), so the table would have measured the load
# generators' JIT. C1 code is at steady state within the warm-up records. Both brokers get the same tools.
TOOL_JVM=(-Xmx512m -XX:TieredStopAtLevel=1)
LOG_CONFIG="-Dlog4j2.configurationFile=$here/log4j2.properties"

# Broker and load on separate cores: on 2 cores the load generators take most of the CPU,
# and a broker sharing a core with them is measured as much by the scheduler as by its own code. The
# broker under test (each in turn: only one is loaded at a time) runs on BENCH_BROKER_CPUS, every
# load JVM and helper on BENCH_LOAD_CPUS. Other people's processes on the machine are not pinned:
# the load averages are recorded with every run. BENCH_PIN=0 turns pinning off.
if [[ "${BENCH_PIN:-1}" != 0 ]] && command -v taskset >/dev/null && (( $(nproc) >= 2 )); then
    PIN_BROKER=(taskset -c "${BENCH_BROKER_CPUS:-1}")
    PIN_LOAD=(taskset -c "${BENCH_LOAD_CPUS:-0}")
else
    PIN_BROKER=()
    PIN_LOAD=()
fi
# BENCH_RT=1: brokers and load also run at a real-time priority (SCHED_FIFO 10, `chrt`), so on a shared
# machine other processes cannot preempt them: a latency tail then is the broker's and the disk's, not
# the scheduler's. The kernel's RT throttling (95% of each second) keeps the machine usable. Both
# brokers get the same; the disk is still shared with whatever else writes to it.
if [[ -n "${BENCH_RT:-}" ]] && chrt -f 10 true 2>/dev/null; then
    PIN_BROKER=(chrt -f 10 ${PIN_BROKER[@]+"${PIN_BROKER[@]}"})
    PIN_LOAD=(chrt -f 10 ${PIN_LOAD[@]+"${PIN_LOAD[@]}"})
fi

broker_jvm() { # name: BROKER_JVM plus a GC log (cheap, the same for both) and, with BENCH_JFR=1, a JFR recording
    local flags=("${BROKER_JVM[@]}" "-Xlog:gc:file=$results/$1-gc.log")
    [[ -n "${BENCH_JFR:-}" ]] && flags+=("-XX:StartFlightRecording=filename=$results/$1.jfr,settings=profile,dumponexit=true")
    echo "${flags[@]}"
}

say() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { say "setup failed: $*"; exit 2; }

stop_pid() { # pid name: SIGTERM for a clean shutdown, SIGKILL after 60 s
    local pid=$1 name=$2
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
    say "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    # `tail --pid` returns when the process is gone; timeout bounds how long a shutdown may take.
    timeout 60 tail --pid="$pid" -f /dev/null || true
    if kill -0 "$pid" 2>/dev/null; then
        say "$name did not stop within 60 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

port_in_use() { (exec 3<>"/dev/tcp/${1%:*}/${1#*:}") 2>/dev/null; }

require_free_ports() { # address...: a broker already listening there would be measured instead
    local address
    for address; do
        ! port_in_use "$address" || die "$address is in use (another benchmark?): a broker there would be measured instead"
    done
}

stop_brokers_and_clean() { # the EXIT trap of a script that starts brokers: stops both, removes $work unless BENCH_KEEP
    stop_pid "${kaas_pid:-}" kaas
    stop_pid "${apache_pid:-}" "Apache Kafka"
    if [[ -z "${BENCH_KEEP:-}" ]]; then rm -rf "$work"; else say "data kept in $work"; fi
}

tool() { # logname class args...: one Apache tool or bench helper in its own JVM
    local logname=$1; shift
    ${PIN_LOAD[@]+"${PIN_LOAD[@]}"} java "${TOOL_JVM[@]}" "$LOG_CONFIG" -Dbench.log.file="$results/$logname.log" -cp "$CP" "$@"
}

build_bench() { # fetches Apache Kafka into .apache/lib and builds the helpers; sets CP
    if [[ -z "${BENCH_SKIP_BUILD:-}" ]]; then
        say "fetching Apache Kafka 4.4.0 through Maven into bench/.apache/lib and building the bench helpers"
        mvn -B -q -f "$here/pom.xml" package -DskipTests >"$results/mvn-bench.log" 2>&1 \
            || die "mvn -f bench/pom.xml package failed; see $results/mvn-bench.log"
    fi
    bench_classpath
}

bench_classpath() { # sets CP: BENCH_CP, or Apache Kafka's jars in .apache/lib and the bench jar, as built
    if [[ -n "${BENCH_CP:-}" ]]; then
        CP="$BENCH_CP"
        return
    fi
    local bench_jar
    bench_jar="$(ls "$here"/target/kaas-bench-*.jar 2>/dev/null | head -1)"
    [[ -n "$bench_jar" ]] || die "no bench/target/kaas-bench-*.jar; build it (mvn -f bench/pom.xml package, or run without BENCH_SKIP_BUILD)"
    compgen -G "$here/.apache/lib/*.jar" >/dev/null || die "bench/.apache/lib is empty; build the bench module (mvn -f bench/pom.xml package)"
    CP="$here/.apache/lib/*:$bench_jar"
}

build_kaas() { # builds kaas unless told not to; sets kaas_reason when `kaas serve` cannot be used
    if [[ ! -x "$KAAS_LAUNCHER" ]]; then
        kaas_reason="kaas serve not available (no launcher $KAAS_LAUNCHER in this checkout)"
        return
    fi
    if [[ -z "${BENCH_SKIP_BUILD:-}" && "$KAAS_LAUNCHER" == "$repo/bin/kaas" ]]; then
        say "building kaas (mvn package -pl cli -am -DskipTests)"
        if ! mvn -B -q -f "$repo/pom.xml" package -DskipTests -pl cli -am >"$results/mvn-kaas.log" 2>&1; then
            kaas_reason="kaas serve not available (build failed, see $results/mvn-kaas.log)"
            return
        fi
    fi
    if ! "$KAAS_LAUNCHER" serve --help >"$results/kaas-serve-help.txt" 2>&1; then
        kaas_reason="kaas serve not available (\`$KAAS_LAUNCHER serve --help\` failed, see $results/kaas-serve-help.txt)"
    fi
}

await_broker() { # name pid bootstrap: no fixed sleep; give up after ~90 s or when the process dies
    local name=$1 pid=$2 bootstrap=$3 attempt
    for attempt in $(seq 1 18); do
        kill -0 "$pid" 2>/dev/null || { say "$name exited during startup"; return 1; }
        tool await-broker io.kaas.bench.AwaitBroker "$bootstrap" 5 >/dev/null 2>>"$results/await-broker.err" && return 0
    done
    say "$name not ready after 90 s"
    return 1
}

new_run() { # results-prefix work-prefix: this run's results dir and a fresh data dir under TMP_ROOT
    results="$here/results/$1$(date -u +%Y%m%dT%H%M%SZ)"
    mkdir -p "$results"
    work="$(mktemp -d "$TMP_ROOT/$2.XXXXXX")"
}

new_cluster_id() {
    local id
    # A Kafka cluster id is 16 random bytes in URL-safe base64 without padding; one starting with
    # '-' would read as an option, so draw again (Apache's own random-uuid does the same).
    until id="$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')" && [[ "$id" != -* ]]; do :; done
    echo "$id"
}

apache_server_properties() { # listener controller advertised logdir: single-node KRaft combined mode
    cat <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=$2
listeners=PLAINTEXT://$1,CONTROLLER://$2
advertised.listeners=PLAINTEXT://$3
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$4
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# A single-node benchmark has nobody to wait for: join consumers at once, as kaas does.
group.initial.rebalance.delay.ms=0
EOF
}

start_apache() { # the single-node properties above, on a fresh data dir
    local dir="$work/apache"
    mkdir -p "$dir/data"
    apache_server_properties "$APACHE_BOOTSTRAP" "$APACHE_CONTROLLER" "${APACHE_ADVERTISED:-$APACHE_BOOTSTRAP}" "$dir/data" \
        >"$dir/server.properties"
    launch_apache "$dir/server.properties"
}

launch_apache() { # server.properties [kafka-storage format arguments...]: format, start, await APACHE_BOOTSTRAP
    local properties=$1; shift
    cp "$properties" "$results/apache-server.properties"
    local cluster_id
    cluster_id="$(new_cluster_id)"
    say "formatting Apache Kafka storage (kafka-storage format --standalone)"
    tool apache-format kafka.tools.StorageTool format -t "$cluster_id" -c "$properties" --standalone "$@" \
        >"$results/apache-format.out" 2>&1 || die "kafka-storage format failed; see $results/apache-format.out"
    say "starting Apache Kafka (KRaft combined mode) on $APACHE_BOOTSTRAP"
    # shellcheck disable=SC2046 # broker_jvm's words are split on purpose; none contains a space
    ${PIN_BROKER[@]+"${PIN_BROKER[@]}"} java $(broker_jvm apache) "$LOG_CONFIG" -Dbench.log.level=INFO -Dbench.log.file="$results/apache-server.log" \
        -cp "$CP" kafka.Kafka "$properties" >"$results/apache-server.out" 2>&1 &
    apache_pid=$!
    await_broker "Apache Kafka" "$apache_pid" "$APACHE_BOOTSTRAP" || die "Apache Kafka did not start; see $results/apache-server.log"
}

start_kaas() {
    local dir="$work/kaas"
    mkdir -p "$dir"
    say "starting kaas serve on $KAAS_BOOTSTRAP"
    KAAS_JAVA_OPTS="$(broker_jvm kaas)" ${PIN_BROKER[@]+"${PIN_BROKER[@]}"} "$KAAS_LAUNCHER" serve --listeners "PLAINTEXT://$KAAS_BOOTSTRAP" \
        --data-dir "$dir" ${KAAS_SERVE_EXTRA[@]+"${KAAS_SERVE_EXTRA[@]}"} >"$results/kaas-server.log" 2>&1 &
    kaas_pid=$!
    if ! await_broker kaas "$kaas_pid" "$KAAS_BOOTSTRAP"; then
        stop_pid "$kaas_pid" kaas; kaas_pid=""
        return 1
    fi
}

# A second kaas in Apache's slot (bench/run.sh with BENCH_A_LAUNCHER): kaas against kaas with
# different flags, e.g. metrics off vs on. Same JVM flags and pinning as start_kaas.
start_kaas_as_a() {
    local dir="$work/a-kaas"
    mkdir -p "$dir"
    say "starting kaas serve (A: ${A_SERVE_EXTRA[*]:-no extra flags}) on $APACHE_BOOTSTRAP"
    KAAS_JAVA_OPTS="$(broker_jvm apache)" ${PIN_BROKER[@]+"${PIN_BROKER[@]}"} "$A_LAUNCHER" serve --listeners "PLAINTEXT://$APACHE_BOOTSTRAP" \
        --data-dir "$dir" ${A_SERVE_EXTRA[@]+"${A_SERVE_EXTRA[@]}"} >"$results/apache-server.log" 2>&1 &
    apache_pid=$!
    await_broker "A" "$apache_pid" "$APACHE_BOOTSTRAP" || die "A broker did not start; see $results/apache-server.log"
}
