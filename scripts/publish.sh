#!/usr/bin/env bash
# Republishes every page under results/ from one commit: reruns every results script, in an order that
# keeps the timed runs (benchmarks, load, capacity) off a machine busy with anything else, then checks
# that every page carries the header of scripts/lib/page.sh and that all of them name the commit it
# started from, and writes that commit into the index (results/README.md).
#
#   bash scripts/publish.sh              every step below (about 110 minutes on 2 cores)
#   bash scripts/publish.sh --list       the steps and the command each runs
#   bash scripts/publish.sh --from STEP  resume at STEP (the steps before it kept as published)
#   bash scripts/publish.sh --only STEP  one step, then the check
#
# Refuses to start when the tree differs from HEAD outside results/, and stops when HEAD moves while it
# runs: a page names the commit whose code produced it, so the code must stay that commit throughout.
# Builds the jars first. Exits 1 when a step fails (the remaining steps are not run; --from resumes)
# or the pages do not name one commit, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."

# name|command. The durations here are the published ones (the nemesis and the sweep run for less than
# their scripts' defaults so that a publish fits in an afternoon); every page names the command it ran.
steps=(
  "bench|bash scripts/bench.sh"
  "wakeup|bash scripts/wakeup.sh"
  "cost|bash scripts/cost.sh"
  "load|bash scripts/load.sh"
  "load-cluster|bash scripts/load.sh --cluster"
  "http-workers|bash scripts/load.sh --http-workers"
  "scenarios|bash scripts/scenarios.sh"
  "faults|bash scripts/faults.sh"
  "failures|bash scripts/failures.sh"
  "failover|bash scripts/failover.sh"
  "peers|bash scripts/peers.sh"
  "sweep|DURATION=10m bash scripts/sweep.sh"
  "nemesis|NEMESIS_PARALLEL=1 bash scripts/nemesis.sh 8m"
)

usage() {
  echo "usage: bash scripts/publish.sh [--list | --from STEP | --only STEP]" >&2
  echo "steps: $(for s in "${steps[@]}"; do printf '%s ' "${s%%|*}"; done)" >&2
  exit 2
}
step_index() {
  local i
  for i in "${!steps[@]}"; do [[ "${steps[$i]%%|*}" == "$1" ]] && { echo "$i"; return 0; }; done
  echo "publish.sh: no step named '$1'" >&2
  usage
}

first=0 last=$(( ${#steps[@]} - 1 ))
case "${1:-}" in
  "") [[ $# -eq 0 ]] || usage ;;
  --list) for s in "${steps[@]}"; do printf '%-13s %s\n' "${s%%|*}" "${s#*|}"; done; exit 0 ;;
  --from) [[ $# -eq 2 ]] || usage; first="$(step_index "$2")" ;;
  --only) [[ $# -eq 2 ]] || usage; first="$(step_index "$2")"; last="$first" ;;
  -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) usage ;;
esac

if ! git diff --quiet HEAD -- . ':(exclude)results' || [[ -n "$(git ls-files --others --exclude-standard -- . ':(exclude)results')" ]]; then
  echo "publish.sh: the tree differs from HEAD outside results/; commit first, so that every page names code anyone can check out" >&2
  git status --short -- . ':(exclude)results' >&2
  exit 2
fi
for var in IDEMLAB_REDIS_URL IDEMLAB_PG_URL; do
  if [[ -n "${!var:-}" ]]; then
    echo "publish.sh: $var is set; a publish runs on the lab's own servers, whose durability the pages state" >&2
    exit 2
  fi
done
commit="$(git rev-parse --short HEAD)"
echo "publishing from commit $commit: steps $(for i in $(seq "$first" "$last"); do printf '%s ' "${steps[$i]%%|*}"; done)"
echo "building the jars"
./mvnw -B -q -ntp package -DskipTests

log_dir="target/publish"
mkdir -p "$log_dir"
started=$SECONDS
for i in $(seq "$first" "$last"); do
  name="${steps[$i]%%|*}" command="${steps[$i]#*|}"
  if [[ "$(git rev-parse --short HEAD)" != "$commit" ]] || ! git diff --quiet HEAD -- . ':(exclude)results'; then
    echo "publish.sh: the code moved from $commit while publishing; resume with --from $name once it is back" >&2
    exit 1
  fi
  echo "[$(( (SECONDS - started) / 60 )) min] step $(( i + 1 ))/${#steps[@]} $name: $command (log: $log_dir/$name.log)"
  if ! env bash -c "$command" > "$log_dir/$name.log" 2>&1; then
    echo "publish.sh: step $name failed; its log: $log_dir/$name.log (last lines below). Resume with --from $name" >&2
    tail -n 20 "$log_dir/$name.log" >&2
    exit 1
  fi
done

# The index names the commit the pages came from.
date="$(date -u +%Y-%m-%d)"
sed -i -E "s/published from commit \`[0-9a-f]{7,40}\`( on [0-9-]+)?/published from commit \`$commit\` on $date/" results/README.md
echo "[$(( (SECONDS - started) / 60 )) min] checking the pages"
java -cp lab/target/lab.jar dev.idemlab.lab.report.ResultsPages results
