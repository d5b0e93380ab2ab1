#!/usr/bin/env bash
# The nemesis, run long: on every store, a seeded random workload while faults from the lab's one
# vocabulary are injected on a random schedule, each history checked against the provider's ledger.
# Writes results/nemesis/README.md (a row per store, then each store's report).
# Usage: bash scripts/nemesis.sh [DURATION] [STORE...]   (default: 30m on memory, redis, postgres and
# redis-cluster (the lab's own local cluster),
# the stores run one after the other; NEMESIS_PARALLEL=1 runs them at once, each in its own JVM).
# Then the same on every store through the layers users adopt (NEMESIS_THROUGH, default "proxy http webflux
# sample": the @Idempotent proxy, the HTTP filter with three bearer clients sharing their keys, the WebFlux
# filter with the same clients, the Spring Boot sample in a JVM of its own, on redis and postgres only),
# each for NEMESIS_THROUGH_DURATION (default DURATION); then on memory each filter with an anonymous client,
# and each filter with its scoping broken on purpose (--sabotage shared-scope, 30 s), which must be flagged;
# with the sample, on redis its result-cache mode (--sabotage result-cache, 30 s), which must be flagged too.
# On postgres, also the local effects (--effects local: each request places an order through a workflow,
# the orders read back beside the answers), for NEMESIS_THROUGH_DURATION.
# NEMESIS_LAYERS_ONLY=1 leaves out the runs straight to the coordinator and writes results/nemesis/layers.md
# instead of README.md, so that the layers can be run again without the long runs.
# Seeds are fresh and printed; rerun one with: java -jar lab/target/lab.jar nemesis --store S --seed N
# (and the --through, --clients, --sabotage, --effects its row's report names).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

duration="${1:-30m}"
shift || true
stores=("$@")
[[ ${#stores[@]} -gt 0 ]] || stores=(memory redis postgres redis-cluster)
jar=lab/target/lab.jar
layers=(${NEMESIS_THROUGH-proxy http webflux sample})
sample_jar=examples/spring-boot-payments/target/spring-boot-payments.jar
if [[ ! -f "$jar" || ( " ${layers[*]} " == *" sample "* && ! -f "$sample_jar" ) ]]; then
  echo "building $jar and $sample_jar"
  ./mvnw -B -q package -DskipTests
fi
out=results/nemesis
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The commit and the jar as they are now: the runs take half an hour, and the tree may move meanwhile.
settings=""
[[ "${NEMESIS_PARALLEL:-0}" == 1 ]] && settings+="NEMESIS_PARALLEL=1 "
[[ -n "${NEMESIS_THROUGH+set}" ]] && settings+="NEMESIS_THROUGH='$NEMESIS_THROUGH' "
[[ -n "${NEMESIS_THROUGH_DURATION:-}" ]] && settings+="NEMESIS_THROUGH_DURATION=$NEMESIS_THROUGH_DURATION "
layers_only="${NEMESIS_LAYERS_ONLY:-0}"
[[ "$layers_only" == 0 || "$layers_only" == 1 ]] || { echo "nemesis.sh: NEMESIS_LAYERS_ONLY must be 0 or 1, got '$layers_only'" >&2; exit 2; }
[[ "$layers_only" == 1 ]] && settings+="NEMESIS_LAYERS_ONLY=1 "
page="$out/README.md"
[[ "$layers_only" == 1 ]] && page="$out/layers.md"
header="$(page_header "${settings}bash scripts/nemesis.sh $duration ${stores[*]}" "${stores[@]}")"
cp "$jar" "$work/lab.jar"
jar="$work/lab.jar"
if [[ " ${layers[*]} " == *" sample "* ]]; then
  cp "$sample_jar" "$work/spring-boot-payments.jar"
  export IDEMLAB_SAMPLE_JAR="$work/spring-boot-payments.jar"
fi
through_duration="${NEMESIS_THROUGH_DURATION:-$duration}"

# run NAME DURATION ARGS...: one run, its page fragment in $work/NAME.md, its exit status (if not 0) in NAME.status.
run() {
  local name="$1" length="$2" seed
  shift 2
  seed="$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')"
  echo "nemesis $name for $length, seed $seed"
  java -jar "$jar" nemesis "$@" --seed "$seed" --duration "$length" --format markdown \
    --out "$work/$name.md" 2> "$work/$name.err" || echo $? > "$work/$name.status"
}

# expect_flagged NAME RULES WHAT: a double run broken on purpose must exit 1 with one of RULES (an
# extended regex of violation names) in its report, among the violations it lists or in its count by
# rule of those it leaves out (a report lists 30, the gravest rules first); its status is then cleared.
# Anything else (it passed, it crashed, it was flagged for another reason, such as a server that failed
# every request) is a failure of this script.
expect_flagged() {
  local name="$1" rules="$2" what="$3" status
  status="$(cat "$work/$name.status" 2>/dev/null || echo 0)"
  if [[ "$status" == 1 ]] && grep -Eq "(($rules) key|by rule: \{.*\b($rules)=[1-9])" "$work/$name.md" 2>/dev/null; then
    rm "$work/$name.status"
  else
    echo "$what was not flagged for what it breaks (exit $status, none of: $rules)" >&2
    echo 1 > "$work/$name.status"
  fi
}

# runs LENGTH LAYER: every store through LAYER, at once under NEMESIS_PARALLEL=1.
runs() {
  local length="$1" layer="$2" store name
  for store in "${stores[@]}"; do
    # The sample runs in a JVM of its own, on a server that JVM can reach.
    [[ "$layer" != sample || "$store" == redis || "$store" == postgres ]] || continue
    name="$store"
    [[ "$layer" == coordinator ]] || name="$store-$layer"
    names+=("$name")
    if [[ "${NEMESIS_PARALLEL:-0}" == 1 ]]; then
      run "$name" "$length" --store "$store" --through "$layer" &
    else
      run "$name" "$length" --store "$store" --through "$layer"
    fi
  done
  wait
}

names=()
[[ "$layers_only" == 1 ]] || runs "$duration" coordinator
for layer in "${layers[@]}"; do runs "$through_duration" "$layer"; done
if [[ ${#layers[@]} -gt 0 && " ${stores[*]} " == *" postgres "* ]]; then
  names+=(postgres-local-effects)
  run postgres-local-effects "$through_duration" --store postgres --effects local
fi
# Each HTTP filter (servlet, WebFlux) with an anonymous client, then with its scoping broken on purpose.
for filter in http webflux; do
  [[ " ${layers[*]} " == *" $filter "* ]] || continue
  names+=("memory-$filter-anonymous" "memory-$filter-named-anonymous")
  run "memory-$filter-anonymous" "$through_duration" --store memory --through "$filter" --clients anonymous
  run "memory-$filter-named-anonymous" "$through_duration" --store memory --through "$filter" --clients named-anonymous
  # The double whose scoping is broken on purpose: its violations are the point, its passing a failure.
  run "memory-$filter-shared-scope" 30s --store memory --through "$filter" --sabotage shared-scope
  expect_flagged "memory-$filter-shared-scope" 'foreign-response|foreign-refusal|answer-of-another-request' \
    "the $filter filter with its scoping broken on purpose"
  names+=("memory-$filter-shared-scope")
done
if [[ " ${layers[*]} " == *" sample "* && " ${stores[*]} " == *" redis "* ]]; then
  # The sample in its result-cache mode (the post's baseline): its double charges are the point.
  run redis-sample-result-cache 30s --store redis --through sample --sabotage result-cache
  expect_flagged redis-sample-result-cache 'duplicate-charge' "the sample in its result-cache mode"
  names+=(redis-sample-result-cache)
fi

status=0
{
  if [[ "$layers_only" == 1 ]]; then echo "# The nemesis, through the layers users adopt"; else echo "# The nemesis, run"; fi
  echo
  echo "$header"
  echo
  echo "Each row is one \`lab nemesis\` run against one real store: keys shared by 2 to 8 callers, sent through"
  echo "\`call\` and \`callAsync\` (some stages cancelled, one async executor that the nemesis makes reject"
  echo "tasks), under WAIT and RAISE, failing open and closed, with actions of random length (some longer"
  echo "than the 3 s lease, some failing before they charge), while the nemesis injects faults one at a"
  echo "time on its own random schedule. The checker reads only the history (every call's send, answer,"
  echo "outcome and action) and the provider's ledger: at most one charge per key unless each charge beyond the"
  echo "first has an event of its own that explains it, no event explaining two (its call's own counted fail-open"
  echo "under a store error the history shows, never on memory; a takeover of a lease a fault ended, never of a"
  echo "call that failed open; a record a store promise broken on purpose really lost), and then the same"
  echo "schedule is run again with the provider deduplicating on the key, where nothing explains a second"
  echo "charge; every charge a caller got is the ledger's charge of its key and of its own request's amount"
  echo "(one caller in twelve reuses the key with another amount, and must be refused); fences never repeat;"
  echo "every call answers within its bound; no cancelled stage runs its action. A violation prints its witness:"
  echo "each charge of the key and what explains it, or UNEXPLAINED. The seed in each row replays the same"
  echo "workload and fault schedules (the threads' interleaving is the machine's). What the checker catches"
  echo "is measured apart, on deliberate double-charge bugs run under the same nemesis: [mutants.md](mutants.md)"
  echo "(\`bash scripts/mutants.sh\`)."
  echo
  echo "A row whose store cell says \"through proxy\" sent the same workload through an \`@Idempotent\` interface"
  echo "made by \`Idempotency.proxy\` (a synchronous and an asynchronous method; cancels go to the stage the proxy"
  echo "returned); \"through http\" through the demo API's servlet filter over HTTP on 127.0.0.1, one server per"
  echo "policy and store-failure mode (RAISE is the route's 409, WAIT its opt-in wait), every request sent by"
  echo "three clients with the same key for their own orders, checked per client and key: one charge each, and"
  echo "no client ever answered with another's charge (\`foreign-response\`), refused for another's request"
  echo "(\`foreign-refusal\`), or refused by the provider for another's key (\`downstream-key-collision\`). Over"
  echo "HTTP an asynchronous caller that cancels gives up its exchange (HTTP has no cancel: the server goes on),"
  echo "and holders in child JVMs are left out (they call the bare coordinator, under another scope). The"
  echo "shared-scope row runs the filter with its scoping broken on purpose (every client in one scope): it"
  echo "must be flagged, and is counted a failure of this script if it is not. \"named-anonymous\" adds a client"
  echo "authenticated as a principal named \`anonymous\` beside one without a token: their scopes must stay apart."
  echo
  echo "\"through webflux\" sent the same requests, clients and checks to the WebFlux filter (\`IdempotencyWebFilter\`)"
  echo "on Reactor Netty on 127.0.0.1, one server per policy and store-failure mode with the servlet side's route"
  echo "settings, in front of the same charge route as a WebFlux handler; what happened inside (the action's start"
  echo "and fence, the coordinator's outcome) is read on the filter's executor thread, where it runs the action and"
  echo "the rest of the chain. Its anonymous, named-anonymous and shared-scope rows are the servlet filter's."
  echo
  echo "\"through sample\" (Redis and PostgreSQL) sent the same workload over HTTP to the Spring Boot sample"
  echo "(examples/spring-boot-payments) in a JVM of its own, as a team runs it: the starter's reservation, WAIT,"
  echo "failing closed, the call's downstream key passed to the provider (the lab's, over HTTP, whose ledger is"
  echo "read). Its store client reaches the store through the nemesis's proxy, so the store's faults reach it as"
  echo "they reach the bare coordinator; its JVM, which holds every key in flight, is the holder that"
  echo "\`pause-holder\` stops past the lease and \`kill-holder\` kills (then starts again on a new port: calls"
  echo "sent meanwhile wait for it). Two bearer clients send every request under keys of their own. The sample"
  echo "says nothing of its actions: a charge is tied to the call it answered as made for it, else to a call of"
  echo "its key in flight as the charge reached the provider, and its action counts from then. A second charge is"
  echo "explained by the sample's pause or kill only once the holder's lease can have ended. Every caller runs"
  echo "under the sample's WAIT and fail-closed, whatever the workload drew, and its coordinator's counters stay"
  echo "in its JVM. The result-cache row runs the sample's result-cache mode (the post's baseline): it must be"
  echo "flagged, and is counted a failure of this script if it is not."
  echo
  echo "\"local effects\" (PostgreSQL) sent the same workload as workflows of the library's local effects: each request"
  echo "places an order (\`order_created\` with its recovery point, \`charge_created\` under the step's downstream key,"
  echo "\`order_paid\`), some callers fail after their order was written, every caller fails closed and the provider"
  echo "deduplicates on the steps' keys; the orders table is read back beside every answer (an order of the call's"
  echo "own request, paid by the charge it answered with; no charge paying two orders, no request with two paid"
  echo "orders). Child-JVM holders run the same workflow there and are killed or paused at a step boundary (after"
  echo "\`order_created\`, after the provider charged, before \`order_paid\`), then recovered by the key's retries."
  echo
  echo "Faults, by the names the lab uses everywhere:"
  echo
  java -cp "$jar" dev.idemlab.lab.faults.FaultKindList
  echo
  echo "Stalls observed are not injected: a probe of the store (every 100 ms), on a client of its own and through the"
  echo "run's own client, pool included, that took 300 ms or more, or the probing thread waking 300 ms or more late (the"
  echo "machine itself stalled; a pool whose every connection is busy). The checker counts"
  echo "them as store faults: a call that failed open in one is explained, a store that fails fast for no reason is not."
  echo
  printf '%s' "| store | server | seed | requests for | calls | keys | faults injected, by kind | stalls observed | charges | beyond one per key (explained) | violations |
|---|---|---|---|---|---|---|---|---|---|---|
"
  for name in "${names[@]}"; do
    if [[ -s "$work/$name.md" ]]; then
      head -n 1 "$work/$name.md"
    else
      echo "| $name | could not be run: $(tail -n 1 "$work/$name.err" 2>/dev/null) | | | | | | | | | |"
    fi
  done
  for name in "${names[@]}"; do
    [[ -f "$work/$name.status" ]] && status=1
    if [[ -s "$work/$name.md" ]]; then
      echo
      echo "## $name"
      echo
      tail -n +3 "$work/$name.md"
    fi
  done
  echo
  echo "## How it was run"
  echo
  echo "* per store: \`java -jar lab/target/lab.jar nemesis --store S --seed N --duration $duration --format markdown\`"
  echo "* through a layer: the same with \`--through L\` for $through_duration (\`--clients anonymous\`, \`--clients named-anonymous\`, \`--sabotage shared-scope\`, \`--sabotage result-cache\` where the row says)"
  echo "* servers: the ones each row names, private servers the lab provisioned on 127.0.0.1; the store's"
  echo "  client connects through a TCP proxy of the nemesis's own (NetCrusher), its admin connection straight"
  echo "  to the server"
  echo "* what they promise: the private Redis runs without persistence (appendonly no); for"
  echo "  \`restart-from-snapshot\` the nemesis runs its own private Redis whose RDB snapshot is written only on"
  echo "  SAVE, so a restart loses every write since the snapshot: a store promise broken on purpose, as the"
  echo "  memory store's \`clock-jump\` is. The bundled PostgreSQL runs with fsync and synchronous_commit off, and"
  echo "  no fault here crashes it; the lab's Redis Cluster runs without persistence and its failovers are the"
  echo "  planned kind (nothing written is lost)."
} > "$page.tmp"
mv "$page.tmp" "$page"
echo "wrote $page"
exit "$status"
