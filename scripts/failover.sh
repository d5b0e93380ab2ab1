#!/usr/bin/env bash
# What asynchronous replication loses: the failover experiment on the lab's own Redis Cluster, many
# runs without and with WAIT, and what WAIT costs a reservation on the healthy cluster.
#
#   bash scripts/failover.sh           20 runs per variant and 2,000 timed reservations per store,
#                                      written to results/failover/
#   bash scripts/failover.sh --quick   3 runs and 200 reservations, written to target/failover-quick/
#
# Writes runs.md (every run: callers, ledger, sequence diagram) and README.md (the summary, the
# command, commit, JDK, cores, server version, and what the servers promise). Builds
# lab/target/lab.jar first when it is missing. Exits 1 when the lab itself fails.
set -euo pipefail

cd "$(dirname "$0")/.."
source scripts/lib/page.sh

case "${1:-}" in
  "") runs=20; samples=2000; out=results/failover ;;
  --quick) runs=3; samples=200; out=target/failover-quick ;;
  *) echo "usage: bash scripts/failover.sh [--quick]" >&2; exit 2 ;;
esac

jar=lab/target/lab.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi

java_opts=(-Xmx512m)
args=(scenario failover --runs "$runs" --wait-latency-samples "$samples")
work="$(mktemp -d "${TMPDIR:-/tmp}/idemlab-failover.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "failover: $runs runs per variant, $samples timed reservations per store"
java "${java_opts[@]}" -jar "$jar" "${args[@]}" --format markdown --out "$work/runs.md" 2>"$work/err.txt" \
  || { cat "$work/err.txt" >&2; exit 1; }

summary="$(sed -n '/^failover over /,$p' "$work/runs.md")"
store="$(grep -m1 -o 'redis-cluster [0-9.]* ([^)]*)' "$work/runs.md" || echo 'redis-cluster')"

{
  echo "# Failover: what asynchronous replication loses"
  echo
  echo "A reservation acknowledged by a Redis master that dies before its replica copied it is gone"
  echo "after the failover, and the client's retry charges again (fault catalogue case 22). Each run, on"
  echo "the lab's own Redis Cluster (three masters, three replicas): the key's replica is frozen (SIGSTOP)"
  echo "behind a 24 MiB replication backlog, more than the sockets between the two buffer, so nothing"
  echo "written next can reach it; caller A reserves and charges on the master; the master is killed"
  echo "(SIGKILL); the replica is thawed and promoted (CLUSTER FAILOVER TAKEOVER); a fresh node replaces"
  echo "the dead one; caller B, the retry, arrives. Every figure is read off the fake provider's ledger."
  echo
  echo "The lab ran \`java ${java_opts[*]} -jar $jar ${args[*]} --format markdown\` on $store."
  echo
  echo "What the servers promise: nothing durable. The private nodes run without persistence (no RDB,"
  echo "no AOF), and Redis replication is asynchronous: a master answers a write before any replica has"
  echo "it. WAIT only tells how many replicas acknowledged the writes so far; it makes nothing durable"
  echo "and rolls nothing back. Here a reservation that no replica acknowledged within 200 ms is a storage"
  echo "error, and the coordinator fails closed: the caller is refused (503) before anything is charged."
  echo "Failing open instead would run the action anyway, so the failover would still charge twice (that variant is not run here)."
  echo
  echo '```'
  echo "$summary"
  echo '```'
  echo
  echo "How to read it: without WAIT every run must show a second charge (the promoted replica never saw"
  echo "A's reservation); with WAIT, A is refused and the retry charges once. The latency rows time"
  echo "\`reserve\` alone on the healthy cluster, alternating a store without WAIT and one with WAIT 1, on"
  echo "one thread; the ratio is to the baseline from the same run. While WAIT blocks, the other calls on"
  echo "that master's connection queue behind it, which the single-threaded figures do not show."
  echo "Every run, with its sequence diagram, is in [runs.md](runs.md)."
} > "$work/README.md"

mkdir -p "$out"
rm -f "$out"/runs.md "$out"/README.md
cp "$work"/runs.md "$work"/README.md "$out"/
for page in README runs; do
  page_stamp "$out/$page.md" "Failover: every run" "bash scripts/failover.sh${1:+ $1}" redis-cluster
done
echo "wrote $out/README.md and runs.md"
