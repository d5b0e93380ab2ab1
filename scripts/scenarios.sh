#!/usr/bin/env bash
# Publishes the post's tables: runs `lab scenario all` on every store and rewrites results/scenarios/.
#
#   bash scripts/scenarios.sh            # memory, redis and postgres
#   bash scripts/scenarios.sh redis      # only the stores named
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

stores=("$@")
[ ${#stores[@]} -gt 0 ] || stores=(memory redis postgres)
jar=lab/target/lab.jar
[ -f "$jar" ] || ./mvnw -B -q -ntp package -DskipTests

out=results/scenarios
mkdir -p "$out"
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
command="bash scripts/scenarios.sh${1:+ $*}"
page_stamp "$out/README.md" "The post's tables" "$command" "${stores[@]}"
for store in "${stores[@]}"; do
  page_stamp "$out/$store.md" "The post's tables on $store: sequence diagrams" "$command" "$store"
done
echo "wrote $out/README.md and $out/{$(IFS=,; echo "${stores[*]}")}.{txt,json,md}"
