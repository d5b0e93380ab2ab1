#!/usr/bin/env bash
# Publishes the post's tables: runs `lab scenario all` on every store and rewrites results/scenarios/.
#
#   bash scripts/scenarios.sh            # memory, redis and postgres
#   bash scripts/scenarios.sh redis      # only the stores named
set -euo pipefail
cd "$(dirname "$0")/.."

stores=("$@")
[ ${#stores[@]} -gt 0 ] || stores=(memory redis postgres)
jar=lab/target/lab.jar
[ -f "$jar" ] || ./mvnw -B -q -ntp package -DskipTests

out=results/scenarios
mkdir -p "$out"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
for store in "${stores[@]}"; do
  echo "scenarios on $store ..."
  for format in table json markdown; do
    case $format in table) ext=txt ;; json) ext=json ;; markdown) ext=md ;; esac
    # store-down is skipped on memory (it cannot go down); the report says so itself.
    java -jar "$jar" scenario all --store "$store" --format "$format" --out "$out/$store.$ext"
  done
done

{
  echo "# The post's tables, reproduced"
  echo
  echo "Written by \`bash scripts/scenarios.sh\` at commit \`$commit\` on $(date -u +%Y-%m-%d)."
  echo "Machine: $(nproc) cores, $(java -version 2>&1 | head -n 1)."
  echo "Every run: \`java -jar lab/target/lab.jar scenario all --store STORE\` with the post's timing"
  echo "(a 300 ms provider, retries at 50 ms). Every figure is read off the provider's ledger."
  echo
  for store in "${stores[@]}"; do
    echo "## $store"
    echo
    echo '```'
    cat "$out/$store.txt"
    echo '```'
    echo
    echo "Sequence diagrams: [$store.md]($store.md). Raw runs: [$store.json]($store.json)."
    echo
  done
} > "$out/README.md"
echo "wrote $out/README.md and $out/{$(IFS=,; echo "${stores[*]}")}.{txt,json,md}"
