#!/usr/bin/env bash
# A steady stream of first calls into the lab's own PostgreSQL with a short ttl, the table sampled as
# it goes: whether the sweep of expired rows keeps the table flat. Writes results/load/sweep-stream.md.
#
#   bash scripts/sweep.sh                      300 first calls a second for 30 minutes, ttl 60 s
#   DURATION=5m bash scripts/sweep.sh          a shorter look
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

jar=lab/target/lab.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi
duration="${DURATION:-30m}"
rate="${RATE:-300}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
java -jar "$jar" sweep --duration "$duration" --ttl 60s --rate "$rate" --every 30s --format markdown \
  --out "$work/sweep.md" || status=$?
out=results/load/sweep-stream.md
if [[ ! -s "$work/sweep.md" ]]; then
  echo "lab sweep wrote no report (exit $status); $out left as it was" >&2
  exit 1
fi
mkdir -p results/load
{
  echo "# The sweep under a steady stream"
  echo
  echo "The lab ran \`java -jar lab/target/lab.jar sweep --duration $duration --ttl 60s --rate $rate --every 30s --format markdown\`."
  echo "Each first call is a reserve, then a complete with a 211-byte JSON result and a 60-second ttl, on the"
  echo "store's default sweep settings. The rows are the stream's own; the table's size includes its indexes"
  echo "and whatever dead tuples vacuum has not yet made reusable."
  echo
  cat "$work/sweep.md"
} > "$work/page.md"
command="bash scripts/sweep.sh"
[[ -n "${RATE:-}" ]] && command="RATE=$RATE $command"
[[ -n "${DURATION:-}" ]] && command="DURATION=$DURATION $command"
page_stamp "$work/page.md" "The sweep under a steady stream" "$command" postgres
mv "$work/page.md" "$out"
echo "wrote $out"
exit "$status"
