#!/usr/bin/env bash
# bench/damage.sh: the damage campaign (cli/src/test/.../damage/DamageCampaignProperties) at a size CI
# does not run: DAMAGE_CASES cases (default 100000) instead of the 1000 the test suite runs. Each case damages one file
# of a small engine-written partition and runs recover (also --dry-run, --force, --force --truncate),
# verify, compact, delete-records, rebuild-index and the engine's open on copies of it, in-process.
#
#   bench/damage.sh
#   DAMAGE_SEEDS=123,-456 bench/damage.sh        # replay cases by the seeds a run printed
#
# Tunables (environment): DAMAGE_CASES=100000, DAMAGE_SEED (random; a number draws a fixed set, as CI does), DAMAGE_SEEDS (replay those cases only), DAMAGE_DIR (where
# the cases' files go; default /dev/shm, where the tools' fsyncs cost nothing, else the temp dir).
# Output: the campaign's `damage:` lines (counts, violations by tool and problem, failing cases grouped by
# tool, problem, file, field class and damage kind with seeds to replay) on stdout and in
# bench/results/damage-<UTC time>/report.txt; every violation, one a line, in cli/target/damage-campaign.txt.
# Exit 0 when no invariant broke, 1 when one did, 2 when the build failed.
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results="$here/results/damage-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$results"

props=(-Dkaas.damage.tries="${DAMAGE_CASES:-100000}" -Dkaas.damage.seed="${DAMAGE_SEED:-random}")
[[ -n "${DAMAGE_SEEDS:-}" ]] && props+=(-Dkaas.damage.seeds="$DAMAGE_SEEDS")
[[ -n "${DAMAGE_DIR:-}" ]] && props+=(-Dkaas.damage.dir="$DAMAGE_DIR")

status=0
mvn -B -q -f "$repo/pom.xml" -pl cli -am test -Dtest='DamageCampaign*' -Dsurefire.failIfNoSpecifiedTests=false \
    "${props[@]}" >"$results/mvn.log" 2>&1 || status=$?
output="$repo/cli/target/surefire-reports/io.kaas.cli.damage.DamageCampaignProperties-output.txt"
if [[ ! -f "$output" ]] || ! grep -q '^damage:' "$output"; then
    echo "the campaign did not run; see $results/mvn.log" >&2
    exit 2
fi
grep '^\(damage\|             e\.g\.\)' "$output" | tee "$results/report.txt"
(( status == 0 )) || exit 1
