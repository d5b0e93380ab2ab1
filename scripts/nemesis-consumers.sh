#!/usr/bin/env bash
# The nemesis on consumers: `lab nemesis --through kafka` on Redis and PostgreSQL, the provider
# deduplicating on the downstream key (nothing excuses a second charge), then on Redis with the provider
# not deduplicating (each extra charge must be explained by a kill or stop of its handler, or a store fault),
# then the two consumers broken on purpose, which must be flagged. Writes results/nemesis/consumers.md.
# Usage: bash scripts/nemesis-consumers.sh [DURATION]   (default 60s a run; the sabotaged runs 15s)
# Seeds are fresh and printed; each report ends with the line that replays its schedules.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

duration="${1:-60s}"
jar=lab/target/lab.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
header="$(page_header "bash scripts/nemesis-consumers.sh $duration" kafka redis postgres)"
cp "$jar" "$work/lab.jar"
status=0

# run NAME DURATION ARGS...: one run, its report in $work/NAME.md, its exit status in $work/NAME.status.
run() {
  local name="$1" length="$2" seed
  shift 2
  seed="$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')"
  echo "nemesis on consumers: $name for $length, seed $seed"
  local code=0
  java -jar "$work/lab.jar" nemesis --through kafka "$@" --seed "$seed" --duration "$length" --format markdown \
    --out "$work/$name.md" 2> "$work/$name.err" || code=$?
  echo "$code" > "$work/$name.status"
}

run redis "$duration" --store redis --downstream-key
run postgres "$duration" --store postgres --downstream-key
run redis-no-dedup "$duration" --store redis
run redis-commit-first 15s --store redis --downstream-key --sabotage commit-first
run redis-bare-handler 15s --store redis --downstream-key --sabotage bare-handler

for name in redis postgres redis-no-dedup; do
  [[ "$(cat "$work/$name.status")" == 0 ]] || { echo "$name: violations (exit $(cat "$work/$name.status"))" >&2; status=1; }
done
# The doubles broken on purpose: flagged for what they break, or this script fails.
grep -q "commit-past-unfinished" "$work/redis-commit-first.md" && [[ "$(cat "$work/redis-commit-first.status")" == 1 ]] \
  || { echo "commit-first was not flagged for commit-past-unfinished" >&2; status=1; }
grep -q "duplicate-charge" "$work/redis-bare-handler.md" && [[ "$(cat "$work/redis-bare-handler.status")" == 1 ]] \
  || { echo "bare-handler was not flagged for duplicate-charge" >&2; status=1; }

out=results/nemesis/consumers.md
{
  echo "# The nemesis on consumers"
  echo
  echo "$header"
  echo
  echo "Each section is one \`lab nemesis --through kafka\` run: a seeded stream of charge records (20 new keys a"
  echo "second, one key in six sent again 0.2 to 3 s later, to its partition or another; one record in forty"
  echo "with an action longer than the members' poll interval) into a topic of 4 partitions on the lab's"
  echo "broker (Kafka's KRaft server in the lab's JVM, on 127.0.0.1), consumed by one group (classic protocol,"
  echo "session timeout and max.poll.interval.ms 3 s, manual commits) through the Kafka adapter"
  echo "(\`IdempotentConsumer\`, \`IdempotentRecordHandler\` under WAIT, failing closed, lease 3 s) on the run's"
  echo "store: two members in child JVMs, which the nemesis kills (\`kill-consumer\`, SIGKILL, a fresh child"
  echo "joining later) and stops past their session and poll interval (\`pause-consumer\`, SIGSTOP then SIGCONT),"
  echo "members in the lab's JVM joining and leaving (\`rebalance\`), the broker stopped and started again on"
  echo "its log (\`restart-broker\`), and the store's faults as \`lab nemesis\` plays them (but those that break"
  echo "the store's promise on purpose), one at a time on the seed's schedule. The checker reads only the"
  echo "members' events (delivery begun, charged, finished; each commit asked, timed before it left), the"
  echo "provider's ledger and the broker's committed and end offsets once the group has committed the end"
  echo "of every partition: \`lost-record\` (a key sent and never charged), \`uncommitted-at-end\`,"
  echo "\`commit-past-unfinished\` (a commit past a record no member had finished when it was asked), and"
  echo "\`duplicate-charge\`: with the provider deduplicating on the downstream key nothing excuses one;"
  echo "without, each charge beyond a key's first needs an event of its own (its handler killed or stopped"
  echo "while handling it, the case the adapter documents: a holder gone or paused past its lease; or a store"
  echo "fault during its handling). The last two runs break the consumer on purpose and must be flagged:"
  echo "\`commit-first\` (the adapter's handler, but each poll committed before it is handled) and"
  echo "\`bare-handler\` (the handler without the adapter, each record committed after its charge)."
  echo
  for name in redis postgres redis-no-dedup redis-commit-first redis-bare-handler; do
    echo "## $name"
    echo
    if [[ -s "$work/$name.md" ]]; then cat "$work/$name.md"; else echo "no report (exit $(cat "$work/$name.status")):"; echo '```text'; tail -20 "$work/$name.err"; echo '```'; fi
    echo
  done
} > "$work/page.md"
cp "$work/page.md" "$out"
echo "wrote $out"
exit "$status"
