#!/usr/bin/env bash
# The fault catalogue (shared reference: fault-catalogue.md) run for real: each fault injected on every
# store it applies to and judged from the provider's ledger. Writes results/faults/README.md.
# Servers come from the lab's infra (IDEMLAB_REDIS_URL / IDEMLAB_PG_URL to use your own).
# Builds lab/target/lab.jar first when it is missing. Takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

jar=lab/target/lab.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi
out=results/faults
mkdir -p "$out"
table="$(mktemp)"
trap 'rm -f "$table"' EXIT
status=0
java -jar "$jar" faults --format markdown --out "$table" || status=$?
{
  echo "# The fault catalogue, run"
  echo
  echo "Each row injects one fault of the catalogue for real on one store (a paused Redis, a held"
  echo "PostgreSQL lock, terminated backends, a corrupted record, a holder interrupted or paused past its"
  echo "lease, a store stopped under its client) and reads what happened off the provider's ledger and the"
  echo "answers the callers got. *holds*: the invariant held; *shown elsewhere*: the fault is injected for"
  echo "real by the test or failure-lab scenario the row names; *does not apply*: the row says why."
  echo "Invariants: I1 at most one charge per key except counted fail-opens; I2 every success carries the"
  echo "ledger's charge; I3 no 409 forever; I4 failures leave nothing; I5 every fail-open counted."
  echo
  cat "$table"
  echo
  echo "## What the servers promise"
  echo
  echo "The servers are the ones named above the table (private servers the lab provisions bind 127.0.0.1)."
  echo "No row here depends on surviving a crash of the server: the private Redis runs without persistence and"
  echo "the bundled PostgreSQL with fsync and synchronous_commit off, as the header says. The lab ran"
  echo "\`java -jar lab/target/lab.jar faults --format markdown\`; exit status $status."
} > "$out/README.md"
page_stamp "$out/README.md" "The fault catalogue, run" "bash scripts/faults.sh" memory redis postgres
echo "wrote $out/README.md"
exit "$status"
