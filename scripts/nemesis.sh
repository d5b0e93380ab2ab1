#!/usr/bin/env bash
# The nemesis, run long: on every store, a seeded random workload while faults from the lab's one
# vocabulary are injected on a random schedule, each history checked against the provider's ledger.
# Writes results/nemesis/README.md (a row per store, then each store's report).
# Usage: bash scripts/nemesis.sh [DURATION] [STORE...]   (default: 30m on memory, redis, postgres and
# redis-cluster (the lab's own local cluster),
# the stores run one after the other; NEMESIS_PARALLEL=1 runs them at once, each in its own JVM).
# Seeds are fresh and printed; rerun one with: java -jar lab/target/lab.jar nemesis --store S --seed N.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

duration="${1:-30m}"
shift || true
stores=("$@")
[[ ${#stores[@]} -gt 0 ]] || stores=(memory redis postgres redis-cluster)
jar=lab/target/lab.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi
out=results/nemesis
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The commit and the jar as they are now: the runs take half an hour, and the tree may move meanwhile.
header="$(page_header "$( [[ "${NEMESIS_PARALLEL:-0}" == 1 ]] && printf 'NEMESIS_PARALLEL=1 ')bash scripts/nemesis.sh $duration ${stores[*]}" "${stores[@]}")"
cp "$jar" "$work/lab.jar"
jar="$work/lab.jar"

run_store() {
  local store="$1" seed
  seed="$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')"
  echo "nemesis on $store for $duration, seed $seed"
  java -jar "$jar" nemesis --store "$store" --seed "$seed" --duration "$duration" --format markdown \
    --out "$work/$store.md" 2> "$work/$store.err" || echo $? > "$work/$store.status"
}

if [[ "${NEMESIS_PARALLEL:-0}" == 1 ]]; then
  for store in "${stores[@]}"; do run_store "$store" & done
  wait
else
  for store in "${stores[@]}"; do run_store "$store"; done
fi

status=0
{
  echo "# The nemesis, run"
  echo
  echo "$header"
  echo
  echo "Each row is one \`lab nemesis\` run against one real store: keys shared by 2 to 8 callers, sent through"
  echo "\`call\` and \`callAsync\` (some stages cancelled, one async executor that the nemesis makes reject"
  echo "tasks), under WAIT and RAISE, failing open and closed, with actions of random length (some longer"
  echo "than the 3 s lease, some failing before they charge), while the nemesis injects faults one at a"
  echo "time on its own random schedule. The checker reads only the history (every call's send, answer,"
  echo "outcome and action) and the provider's ledger: at most one charge per key unless a counted"
  echo "fail-open, a counted lease loss under a fault, or a store promise broken on purpose explains it (and"
  echo "then the same schedule is run again with the provider deduplicating on the key, where nothing"
  echo "explains a second charge); every charge a caller got is the ledger's charge of its key; every call"
  echo "answers within its bound; no cancelled stage runs its action. The seed in each row replays the same"
  echo "workload and fault schedules (the threads' interleaving is the machine's). What the checker catches"
  echo "is measured apart, on deliberate double-charge bugs run under the same nemesis: [mutants.md](mutants.md)"
  echo "(\`bash scripts/mutants.sh\`)."
  echo
  echo "Faults, by the names the lab uses everywhere:"
  echo
  java -cp "$jar" dev.idemlab.lab.faults.FaultKindList
  echo
  echo "Stalls observed are not injected: a probe of the store on a client of its own (every 100 ms) that took 300 ms"
  echo "or more, or the probing thread waking 300 ms or more late (the machine itself stalled). The checker counts"
  echo "them as store faults: a call that failed open in one is explained, a store that fails fast for no reason is not."
  echo
  printf '%s' "| store | server | seed | requests for | calls | keys | faults injected, by kind | stalls observed | charges | beyond one per key (explained) | violations |
|---|---|---|---|---|---|---|---|---|---|---|
"
  for store in "${stores[@]}"; do
    if [[ -s "$work/$store.md" ]]; then
      head -n 1 "$work/$store.md"
    else
      echo "| $store | could not be run: $(tail -n 1 "$work/$store.err" 2>/dev/null) | | | | | | | | | |"
    fi
  done
  for store in "${stores[@]}"; do
    [[ -f "$work/$store.status" ]] && status=1
    if [[ -s "$work/$store.md" ]]; then
      echo
      echo "## $store"
      echo
      tail -n +3 "$work/$store.md"
    fi
  done
  echo
  echo "## How it was run"
  echo
  echo "* per store: \`java -jar lab/target/lab.jar nemesis --store S --seed N --duration $duration --format markdown\`"
  echo "* servers: the ones each row names, private servers the lab provisioned on 127.0.0.1; the store's"
  echo "  client connects through a TCP proxy of the nemesis's own (NetCrusher), its admin connection straight"
  echo "  to the server"
  echo "* what they promise: the private Redis runs without persistence (appendonly no); for"
  echo "  \`restart-from-snapshot\` the nemesis runs its own private Redis whose RDB snapshot is written only on"
  echo "  SAVE, so a restart loses every write since the snapshot: a store promise broken on purpose, as the"
  echo "  memory store's \`clock-jump\` is. The bundled PostgreSQL runs with fsync and synchronous_commit off, and"
  echo "  no fault here crashes it; the lab's Redis Cluster runs without persistence and its failovers are the"
  echo "  planned kind (nothing written is lost)."
} > "$out/README.md"
echo "wrote $out/README.md"
exit "$status"
