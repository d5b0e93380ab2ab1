#!/usr/bin/env bash
# The Kafka adapter's throughput beside a bare consumer's, on a broker the lab starts, with the ledger
# checked: writes results/load/consumer.md.
#
#   bash scripts/consumer-load.sh                     5,000 records, a 1 ms handler, Redis and PostgreSQL
#   MESSAGES=20000 bash scripts/consumer-load.sh      a longer drain
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

jar=lab/target/lab.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi
if [[ -n "${IDEMLAB_KAFKA_URL:-}" ]]; then
  echo "consumer-load.sh: IDEMLAB_KAFKA_URL is set; the page runs on the lab's own broker, whose settings it states" >&2
  exit 2
fi
messages="${MESSAGES:-5000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
java -jar "$jar" consumer-load --messages "$messages" --format markdown --out "$work/consumer.md" || status=$?
out=results/load/consumer.md
if [[ ! -s "$work/consumer.md" ]]; then
  echo "lab consumer-load wrote no report (exit $status); $out left as it was" >&2
  [[ $status == 2 ]] && exit 2
  exit 1
fi
mkdir -p results/load
{
  echo "# The Kafka adapter under load"
  echo
  echo "The lab ran \`java -jar lab/target/lab.jar consumer-load --messages $messages --format markdown\`: the same"
  echo "handler (1 ms of work, then a charge) behind a bare consumer (handle, then commit the poll) and behind"
  echo "the adapter (the coordinator's reservation per record, offsets committed only past finished records),"
  echo "one consumer thread each, on one broker. \"x bare\" is the drained throughput as a share of the mean of"
  echo "the bare runs just before and just after, in the same run; the stores take turns for three rounds, and a"
  echo "store is judged on the median of its three ratios (one run's ratio moved by 0.1 between runs on this"
  echo "shared machine: 0.67x, 0.70x and 0.76x on Redis at one commit); the target is 0.7x. The charges are the"
  echo "provider's ledger: in the paced phase the bare consumer charges every record sent twice again, which is"
  echo "what the adapter is for."
  echo
  cat "$work/consumer.md"
} > "$work/page.md"
command="bash scripts/consumer-load.sh"
[[ -n "${MESSAGES:-}" ]] && command="MESSAGES=$MESSAGES $command"
cp "$work/page.md" "$out"
page_stamp "$out" "The Kafka adapter under load" "$command" kafka redis postgres
echo "wrote $out"
exit "$status"
