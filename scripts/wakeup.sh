#!/usr/bin/env bash
# The wake-up table: how soon a WAIT caller gets its answer after the holder of the key got its own,
# per store at 1, 10 and 100 waiters, beside a Redisson RLock waiter on the same Redis in the same run.
# Writes results/bench/wakeup.md. Servers come from the lab's infra (IDEMLAB_REDIS_URL / IDEMLAB_PG_URL
# to use your own). Builds bench/target/benchmarks.jar first when it is missing.
#
#   bash scripts/wakeup.sh            40 rounds per row (10 at 100 waiters)
#   ROUNDS=10 bash scripts/wakeup.sh  a quicker look
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

jar=bench/target/benchmarks.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi
rounds="${ROUNDS:-40}"
java -cp "$jar" dev.idemlab.bench.wakeup.WakeUpHarness --rounds "$rounds" --out results/bench/wakeup.md > /dev/null
command="bash scripts/wakeup.sh"
[[ -n "${ROUNDS:-}" ]] && command="ROUNDS=$ROUNDS $command"
page_stamp results/bench/wakeup.md "Waking the waiters" "$command" memory redis postgres
echo "wrote results/bench/wakeup.md"
