#!/usr/bin/env bash
# The storage backends compared under concurrent retries, with exactly-once checked against the
# fake provider's ledger after every run: every store x every in-flight policy, 32 closed-loop
# clients, 20% of requests re-sent with the same key while the first is in flight.
#
#   bash scripts/load.sh           full run for publication: 100,000 requests per store and policy
#                                  (300,000 per store), written to results/load/
#   bash scripts/load.sh --quick   smoke run: 3,000 requests per store and policy, written to
#                                  target/load-quick/ so that the published results stay as they are
#   bash scripts/load.sh --cluster the single Redis beside the lab's own Redis Cluster (three masters,
#                                  three replicas), in one run as the full one, written to
#                                  results/load/cluster/
#
# Writes load.json, load.csv, load.md, throughput.png, p99.png, duplicates.png and README.md (the
# table, the command, commit, JDK, cores and server versions). Servers come from the lab's own
# provisioning (IDEMLAB_REDIS_URL / IDEMLAB_PG_URL to use your own). Builds lab/target/lab.jar
# first when it is missing. Exits 1 when a policy that promises exactly-once charged a key twice.
set -euo pipefail

cd "$(dirname "$0")/.."

mode=full
case "${1:-}" in
  "") ;;
  --quick) mode=quick ;;
  --cluster) mode=cluster ;;
  *) echo "usage: bash scripts/load.sh [--quick|--cluster]" >&2; exit 2 ;;
esac

jar=lab/target/lab.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi

if [[ "$mode" == quick ]]; then
  requests=3000
  out=target/load-quick
elif [[ "$mode" == cluster ]]; then
  requests=100000
  out=results/load/cluster
  STORES="${STORES:-redis,redis-cluster}"
else
  requests=100000
  out=results/load
fi
stores="${STORES:-memory,redis,postgres}"
java_opts=(-Djava.awt.headless=true -Xmx512m)
load_args=(load --compare "$stores" --policy all --clients 32 --retry-rate 0.2 --provider-latency-ms 5
  --requests "$requests" --seed 42)

# Write into a fresh folder and replace the published one only when the run produced its files.
work="$(mktemp -d "${TMPDIR:-/tmp}/idemlab-load.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "loading stores $stores ($mode run, $requests requests per store and policy)"
status=0
java "${java_opts[@]}" -jar "$jar" "${load_args[@]}" --results "$work" --format table | tee "$work/table.txt" \
  || status=$?
[[ -f "$work/load.json" ]] || { echo "the load run wrote no results" >&2; exit 1; }

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ "$commit" != unknown ]] && ! git diff --quiet HEAD -- lab fake-provider pom.xml 2>/dev/null; then
  commit="$commit (with uncommitted changes)"
fi
command="java ${java_opts[*]} -jar $jar ${load_args[*]}"
jdk="$(java -version 2>&1 | head -n 2 | tr '\n' ' ' | sed 's/ *$//')"
cores="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo unknown)"

{
  echo "# Load: storage backends under concurrent retries"
  echo
  echo "Closed-loop clients charge orders through the idempotency coordinator; 20% of requests are"
  echo "re-sent with the same key after a random delay no longer than the provider's latency, so the"
  echo "duplicate arrives while the first is in flight (or just done), like a client that timed out"
  echo "and retried. Each store x policy gets a fresh fake provider, and its ledger is checked at"
  echo "the end: keys charged, charges, duplicate charges (charges beyond one per key), and"
  echo "responses that disagree with the ledger. Latencies are HdrHistogram percentiles of every"
  echo "request, retries included (closed loop: service times, no coordinated-omission correction)."
  echo
  echo "* Command: \`bash scripts/load.sh${1:+ $1}\`, which ran \`$command\`"
  echo "* Commit: $commit"
  echo "* JDK: $jdk"
  echo "* Cores: $cores ($(uname -sm)), shared with other work while it ran"
  echo "* Run on $(date -u +%Y-%m-%d) UTC; exit status $status"
  echo
  cat "$work/load.md"
  echo
  echo "![throughput per store and policy](throughput.png)"
  echo
  echo "![p99 latency per store and policy](p99.png)"
  echo
  echo "![duplicate charges per policy](duplicates.png)"
  echo
  echo "How to read it: run is the post's result cache and double-charges every duplicate that"
  echo "arrives while the first is in flight; wait and raise reserve the key first, so the ledger"
  echo "must show no duplicate under them (\`lab load\` exits 1 otherwise). Waits are duplicates that"
  echo "waited for the first request's charge; in-progress are duplicates told 409 under raise."
} > "$work/README.md"

mkdir -p "$out"
rm -f "$out"/load.json "$out"/load.csv "$out"/load.md "$out"/*.png "$out"/README.md
cp "$work"/load.json "$work"/load.csv "$work"/load.md "$work"/*.png "$work"/README.md "$out"/
echo "wrote $out/README.md, load.json, load.csv, load.md and charts"
exit "$status"
