#!/usr/bin/env bash
# Republishes every page under results/ from one commit: reruns every results script, then checks that
# every page carries the header of scripts/lib/page.sh and that all of them name the commit the publish
# started from, and writes that commit into the index (results/README.md).
#
#   bash scripts/publish.sh                  every step below (about 3.75 hours on 2 cores, 2.25 of them the
#                                            mutants, and the nemesis's layers about 30 minutes more)
#   bash scripts/publish.sh --list           the steps and the command each runs
#   bash scripts/publish.sh --only STEP,...  the steps named, one after the other, then the check
#                                            (to redo a step that failed at the same commit, or to
#                                            republish some pages from a later commit: the index then
#                                            says which pages come from which commit)
#
# The steps whose figures are counts read off the provider's ledger (scenarios, faults, peers,
# failover, failures, the sweep's table sizes) run first, in three lanes at once; then the nemesis and
# its layers, alone, as their stores at once fill the machine; then the mutants (each deliberate bug under
# the nemesis, three runs at a time, those over HTTP one at a time, caught or missed), alone too; then the steps whose figures are times
# (benchmarks, wake-up, record cost, load, capacity), one at a time, with nothing else of the publish
# running. The environment's overrides of the scripts (STORES, DURATION, ...) are refused.
#
# Refuses to start when the tree differs from HEAD outside results/, and stops before a step when HEAD
# has moved: a page names the commit whose code produced it, so the code must stay that commit
# throughout. Builds the jars first. Logs: target/publish/STEP.log. Exits 1 when a step failed (the
# others still run; --only redoes it) or the pages do not name one commit, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."

# name|command. Durations are the published ones: the nemesis and the sweep run for 10 minutes (then the
# nemesis through the proxy, the HTTP filter and local effects, 5 minutes each, onto a page of its own),
# each mutant for 30 s on 3 seeds per store, a run missed in 30 s made again on its seed for the two minutes
# its target allows (the script's default, 120 s for every run, would take the mutants alone about eight hours), and the
# benchmarks for 3 x 1 s per measurement, not their scripts' defaults, so that a publish fits in a day
# on two cores; every page names the command it ran, these settings included.
steps=(
  "scenarios|bash scripts/scenarios.sh"
  "faults|bash scripts/faults.sh"
  "peers|bash scripts/peers.sh"
  "failover|bash scripts/failover.sh"
  "failures|bash scripts/failures.sh"
  "sweep|DURATION=10m bash scripts/sweep.sh"
  "nemesis|NEMESIS_PARALLEL=1 NEMESIS_THROUGH= bash scripts/nemesis.sh 10m"
  "nemesis-layers|NEMESIS_PARALLEL=1 NEMESIS_LAYERS_ONLY=1 NEMESIS_THROUGH_DURATION=5m bash scripts/nemesis.sh 5m"
  "nemesis-consumers|bash scripts/nemesis-consumers.sh 5m"
  "mutants|bash scripts/mutants.sh --seeds 3 --duration 30s --longer 2m --control --jobs 3"
  "bench|ITERATIONS=3 ITERATION_TIME=1s bash scripts/bench.sh"
  "wakeup|bash scripts/wakeup.sh"
  "cost|bash scripts/cost.sh"
  "load|bash scripts/load.sh"
  "load-cluster|bash scripts/load.sh --cluster"
  "http-workers|bash scripts/load.sh --http-workers"
  "consumer-load|bash scripts/consumer-load.sh"
)
# The counted steps, by lane, run at once; then the nemesis alone (its four stores at once fill the
# machine), and the mutants alone (up to three nemesis runs at once); every other step is timed and
# runs alone afterwards.
lanes=("scenarios faults peers failover" "failures" "sweep")
alone_first=(nemesis nemesis-layers nemesis-consumers mutants)
# Settings the scripts read from the environment: a publish uses its own, never the caller's.
overrides=(STORES MESSAGES RATES RATE RECORDS ROUNDS ONLY STALL_ONLY SCENARIOS_ONLY STALL_DURATION ITERATIONS
  ITERATION_TIME DURABLE NEMESIS_PARALLEL NEMESIS_THROUGH NEMESIS_THROUGH_DURATION NEMESIS_LAYERS_ONLY DURATION)

usage() {
  echo "usage: bash scripts/publish.sh [--list | --only STEP[,STEP...]]" >&2
  echo "steps: $(for s in "${steps[@]}"; do printf '%s ' "${s%%|*}"; done)" >&2
  exit 2
}
command_of() {
  local s
  for s in "${steps[@]}"; do [[ "${s%%|*}" == "$1" ]] && { echo "${s#*|}"; return 0; }; done
  return 1
}

only=()
case "${1:-}" in
  "") [[ $# -eq 0 ]] || usage ;;
  --list) for s in "${steps[@]}"; do printf '%-13s %s\n' "${s%%|*}" "${s#*|}"; done; exit 0 ;;
  --only) [[ $# -eq 2 ]] || usage
          IFS=',' read -r -a only <<<"$2"
          for name in "${only[@]}"; do
            command_of "$name" > /dev/null || { echo "publish.sh: no step named '$name'" >&2; usage; }
          done ;;
  -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) usage ;;
esac

code_moved() {
  ! git diff --quiet HEAD -- . ':(exclude)results' \
    || [[ -n "$(git ls-files --others --exclude-standard -- . ':(exclude)results')" ]]
}
if code_moved; then
  echo "publish.sh: the tree differs from HEAD outside results/; commit first, so that every page names code anyone can check out" >&2
  git status --short -- . ':(exclude)results' >&2
  exit 2
fi
for var in IDEMLAB_REDIS_URL IDEMLAB_PG_URL IDEMLAB_KAFKA_URL; do
  if [[ -n "${!var:-}" ]]; then
    echo "publish.sh: $var is set; a publish runs on the lab's own servers, whose durability the pages state" >&2
    exit 2
  fi
done
for var in "${overrides[@]}"; do
  if [[ -n "${!var:-}" ]]; then
    echo "publish.sh: $var is set; a publish runs every script with the settings --list shows, unset it first" >&2
    exit 2
  fi
done
commit="$(git rev-parse --short HEAD)"
log_dir=target/publish
started=$SECONDS
failed="$(mktemp)"
trap 'rm -f "$failed"' EXIT

echo "publishing from commit $commit; logs in $log_dir/"
echo "building the jars"
./mvnw -B -q -ntp package -DskipTests
mkdir -p "$log_dir"

# Stops a process and everything it started, children first (a JVM's TERM stops the servers it owns).
kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}

# Runs one step, unless the code has moved from the publish's commit; a failure is recorded, not fatal.
run_step() {
  local name="$1" command
  command="$(command_of "$name")"
  if [[ "$(git rev-parse --short HEAD)" != "$commit" ]] || code_moved; then
    echo "publish.sh: the code moved from $commit; $name not run" >&2
    echo "$name" >> "$failed"
    return 0
  fi
  echo "[$(( (SECONDS - started) / 60 )) min] $name: $command"
  if bash -c "$command" > "$log_dir/$name.log" 2>&1; then
    echo "[$(( (SECONDS - started) / 60 )) min] $name done"
  else
    echo "[$(( (SECONDS - started) / 60 )) min] $name FAILED, log: $log_dir/$name.log; last lines:" >&2
    tail -n 15 "$log_dir/$name.log" >&2
    echo "$name" >> "$failed"
  fi
}

if [[ ${#only[@]} -gt 0 ]]; then
  for name in "${only[@]}"; do run_step "$name"; done
else
  # The lanes; Ctrl-C or a TERM stops them too, and a lane that dies outside a step is a failure.
  lane_pids=()
  trap 'for pid in "${lane_pids[@]}"; do kill_tree "$pid"; done; exit 130' INT TERM
  for lane in "${lanes[@]}"; do
    ( for name in $lane; do run_step "$name"; done ) &
    lane_pids+=("$!")
  done
  for i in "${!lane_pids[@]}"; do
    wait "${lane_pids[$i]}" || echo "lane: ${lanes[$i]}" >> "$failed"
  done
  trap - INT TERM
  for name in "${alone_first[@]}"; do run_step "$name"; done
  counted=" ${lanes[*]} ${alone_first[*]} "
  for s in "${steps[@]}"; do
    name="${s%%|*}"
    [[ "$counted" == *" $name "* ]] || run_step "$name"
  done
fi

if [[ -s "$failed" ]]; then
  echo "publish.sh: failed: $(sort -u "$failed" | paste -sd' ' -); redo with: bash scripts/publish.sh --only $(sort -u "$failed" | paste -sd, -)" >&2
fi
# The index names the commit the pages came from: a whole publish rewrites its publish line (and drops
# every republish line), a partial one at another commit adds a republish line naming its steps and pages.
published="$(grep -oE '(^|[^e])published from commit `[0-9a-f]{7,40}`' results/README.md | grep -oE '[0-9a-f]{7,40}' | head -n1 || true)"
if [[ ${#only[@]} -eq 0 ]]; then
  sed -i -E "s/published from commit \`[0-9a-f]{7,40}\`( on [0-9-]+)?/published from commit \`$commit\` on $(date -u +%Y-%m-%d)/" results/README.md
  sed -i '/^\* Republished from commit `/d' results/README.md
elif [[ "$published" != "$commit" ]]; then
  pages="$(grep -rl --include='*.md' -F "* commit: \`$commit\`" results | grep -v '^results/README.md$' | grep -v '/quick/' \
    | sed 's|^results/||' | sort | paste -sd' ' - || true)"
  line="* Republished from commit \`$commit\` on $(date -u +%Y-%m-%d) by \`bash scripts/publish.sh --only $(IFS=,; echo "${only[*]}")\`: ${pages:-no page}"
  sed -i "/^\* Republished from commit \`$commit\`/d" results/README.md
  # After the paragraph that names the publish's commit.
  awk -v line="$line" '{ print } /published from commit/ { found = 1 } found && /^$/ && !done { print line; print ""; done = 1 }' \
    results/README.md > results/README.md.tmp && mv results/README.md.tmp results/README.md
  # A republish line whose commit no page names any more says something untrue: drop it.
  for old in $(grep -oE '^\* Republished from commit `[0-9a-f]{7,40}`' results/README.md | grep -oE '[0-9a-f]{7,40}'); do
    grep -rlF --include='*.md' "* commit: \`$old\`" results | grep -qv '^results/README.md$' \
      || sed -i "/^\* Republished from commit \`$old\`/d" results/README.md
  done
fi
echo "[$(( (SECONDS - started) / 60 )) min] checking the pages"
status=0
java -cp lab/target/lab.jar dev.idemlab.lab.report.ResultsPages results || status=1
[[ -s "$failed" ]] && status=1
exit "$status"
