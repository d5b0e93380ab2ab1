#!/usr/bin/env bash
# The fault catalogue (shared reference: fault-catalogue.md) run for real: each fault injected on every
# store it applies to and judged from the provider's ledger. Writes results/faults/README.md.
# Servers come from the lab's infra (IDEMLAB_REDIS_URL / IDEMLAB_PG_URL to use your own).
# Builds lab/target/lab.jar first when it is missing. Takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."

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
  echo "## How it was run"
  echo
  echo "* command: \`bash scripts/faults.sh\` (\`java -jar lab/target/lab.jar faults --format markdown\`)"
  echo "* commit: \`$(git rev-parse --short HEAD 2>/dev/null || echo unknown)\`"
  echo "* JDK: $(java -version 2>&1 | head -1); cores: $(nproc)"
  echo "* servers: the ones named above the table (private servers the lab provisions bind 127.0.0.1)"
  echo "* what they promise: the private Redis runs without persistence; the bundled PostgreSQL runs with the"
  echo "  embedded defaults (fsync and synchronous_commit off): no row here depends on surviving a crash of the server."
} > "$out/README.md"
echo "wrote $out/README.md"
exit "$status"
