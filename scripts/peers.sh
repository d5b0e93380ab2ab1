#!/usr/bin/env bash
# The post's experiments on the Java idempotency libraries teams use, beside this project's
# coordinator: `lab peers --load` on one private Redis, published in results/peers/.
#
#   bash scripts/peers.sh                      every library, with the load run, then dbos.md
#   bash scripts/peers.sh camel,redisson-lock  only the libraries named (lab peers --library)
#   bash scripts/peers.sh --dbos               only dbos.md (below)
#
# Writes peers.txt (as printed), peers.json (every call, the ledgers, the load counts), peers.md
# (the matrix, each library's table and in-flight sequence diagram) and README.md (the same page
# with the command, commit, JDK, cores and Redis server that produced it). The Redis comes from the
# lab's own provisioning (IDEMLAB_REDIS_URL to use your own). Builds lab/target/lab.jar first when
# it is missing. Exits 1 when this project's wait or raise row is wrong; other libraries' verdicts
# are reported, not gated.
#
# dbos.md: DBOS Transact beside this project's rows, on the lab's bundled PostgreSQL
# (IDEMLAB_PG_URL to use your own): `lab peers --library dbos,...` (the four experiments) and
# `lab peers crashed-worker` (its worker in a child JVM killed at each step boundary and recovered
# by DBOS, with and without the downstream key, a paused worker, and this project's crash-mid-order
# modes at the same boundaries).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

libraries=()
dbos_only=0
case "${1:-}" in
  "") ;;
  --dbos) dbos_only=1 ;;
  -*) echo "usage: bash scripts/peers.sh [LIBRARY[,LIBRARY...] | --dbos]" >&2; exit 2 ;;
  *) libraries=(--library "$1") ;;
esac

jar=lab/target/lab.jar
[[ -f "$jar" ]] || ./mvnw -B -q -ntp package -DskipTests

out=results/peers

# DBOS's page: the four experiments beside this project's rows, then the crashed-worker table.
dbos_page() {
  local dir status=0 crash_status=0
  dir="$(mktemp -d "${TMPDIR:-/tmp}/idemlab-dbos.XXXXXX")"
  local experiments=(peers --library dbos,idempotency-lab-wait,idempotency-lab-raise,result-cache-run)
  local crashed=(peers crashed-worker)
  echo "running lab ${experiments[*]}"
  java -jar "$jar" "${experiments[@]}" --results "$dir" --format table || status=$?
  echo "running lab ${crashed[*]}"
  java -jar "$jar" "${crashed[@]}" --results "$dir" --format table || crash_status=$?
  if [[ ! -f "$dir/peers.md" || ! -f "$dir/crashed-worker.md" ]]; then
    echo "lab peers wrote no DBOS results" >&2; rm -rf "$dir"; return 1
  fi
  {
    echo "# DBOS Transact beside this project: the post's experiments and the crashed worker"
    echo
    echo "DBOS Transact for Java keeps workflows in PostgreSQL: a workflow id is the idempotency key, each"
    echo "step's output is checkpointed, a transactional step commits with its checkpoint, and a crashed"
    echo "workflow is resumed from its last completed step by the executor that restarts with its id. It has"
    echo "no lease and no fence. Here it runs on the lab's PostgreSQL, its system database in a schema of its"
    echo "own (dropped after each run), admin server off, every other setting its default. Every cell is read"
    echo "off the provider's ledger (and, for the crashed worker, the orders table and the mailer's ledger);"
    echo "DBOS's documented promise stands beside it. How the lab wires it: \`DbosPeer\` (the four experiments)"
    echo "and \`DbosOrders\` (the order workflow); see [docs/peers.md](../../docs/peers.md#dbos-transact)."
    echo
    echo "The lab ran \`java -jar $jar ${experiments[*]}\` (exit status $status) and"
    echo "\`java -jar $jar ${crashed[*]}\` (exit status $crash_status)."
    echo
    echo "## The post's four experiments"
    echo
    sed -e 's/^## /### /' "$dir/peers.md"
    echo
    echo "## The crashed worker"
    echo
    sed -e 's/^## /### /' "$dir/crashed-worker.md"
    echo
    echo "## Reproduce"
    echo
    echo "* \`java -jar $jar peers --library dbos --format markdown\`: the four experiments on DBOS"
    echo "* \`java -jar $jar peers crashed-worker --at charge_created --downstream-key off --beside none\`:"
    echo "  the double charge, alone (add \`--pause-at none\` to skip the paused worker)"
    echo
    echo "The in-flight race is staged with a latch and each crash at a step boundary the worker announces,"
    echo "so nothing here is the luck of a race: the double charge (killed after \`charge_created\`, no downstream"
    echo "key) and the second receipt (after \`receipt_sent\`) come back on every run of the commands above; the"
    echo "index ([results/README.md](../README.md)) says how often they were reproduced before this page was published."
  } > "$dir/dbos.md"
  mkdir -p "$out"
  cp "$dir/dbos.md" "$out/dbos.md"
  rm -rf "$dir"
  page_stamp "$out/dbos.md" "DBOS Transact beside this project" "bash scripts/peers.sh --dbos" redis postgres
  echo "wrote $out/dbos.md"
  return "$status"
}

if [[ "$dbos_only" == 1 ]]; then
  dbos_page
  exit $?
fi
peers_args=(peers --load "${libraries[@]}")
work="$(mktemp -d "${TMPDIR:-/tmp}/idemlab-peers.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "running lab ${peers_args[*]}"
status=0
java -jar "$jar" "${peers_args[@]}" --results "$work" --format table | tee "$work/stdout.txt" || status=$?
[[ -f "$work/peers.md" ]] || { echo "lab peers wrote no results" >&2; exit 1; }

redis="$(head -n 1 "$work/peers.txt" | sed -e 's/^peers  (redis: //' -e 's/) at .*$/)/')"
command="java -jar $jar ${peers_args[*]}"

{
  echo "# The libraries teams use, on the post's experiments"
  echo
  echo "Each library is wired through its documented API in front of the same counting fake provider, on"
  echo "the same Redis, beside this project's coordinator under wait and raise and the post's result cache."
  echo "Every verdict is read off the provider's ledger and the callers' responses (rules: \`Judge\` in the"
  echo "peers module); what a library's documentation promises stands beside it. How each library is wired,"
  echo "and what its wiring had to bend to run on one classpath: [peers/README.md](../../peers/README.md)."
  echo
  echo "The lab ran \`$command\`; exit status $status."
  echo "Redis: $redis, started with \`--save \"\" --appendonly no\` and nothing else"
  echo "  set: no persistence, a restart loses every record, so no row here says what a library does when"
  echo "  its Redis restarts"
  echo
  echo "Verdicts: *one charge, consistent*: the ledger holds what the request deserved and every caller got"
  echo "that charge or an error that says what happened (in progress, key reused, store unavailable);"
  echo "*double charge*: more than one charge for one request; *wrong answer*: no duplicate, but a caller was"
  echo "told something false or useless (\`null\`, its own request back, another charge, a refusal of an"
  echo "honest retry); *not supported*: the library cannot take part (an in-memory store cannot go down)."
  echo
  cat "$work/peers.md"
  echo
  echo "## Reproduce a row"
  echo
  echo "Every row: \`java -jar lab/target/lab.jar peers --library NAME\`; add \`--load\` for its load figures,"
  echo "\`--format json\` for every call with its timing and the ledger. The names:"
  echo
  awk '/^matrix /{m=1; next} m && /^  library /{next} m && NF == 0{exit} m{print $1}' "$work/peers.txt" \
    | sed 's|.*|* `java -jar lab/target/lab.jar peers --library &`|'
  echo
  echo "These are one run's figures. The in-flight race is staged with a latch (the retry is sent once the"
  echo "first call is inside the provider), so the verdicts repeat; the load figures are counts of a race"
  echo "between 8 threads on a shared machine and move from run to run."
} > "$work/README.md"

mkdir -p "$out"
rm -f "$out"/peers.txt "$out"/peers.json "$out"/peers.md "$out"/README.md
cp "$work"/peers.txt "$work"/peers.json "$work"/peers.md "$work"/README.md "$out"/
page_stamp "$out/README.md" "The libraries teams use" "bash scripts/peers.sh${1:+ $1}" redis
page_stamp "$out/peers.md" "The libraries teams use: every table" "bash scripts/peers.sh${1:+ $1}" redis
echo "wrote $out/README.md, peers.txt, peers.json and peers.md"
if [[ ${#libraries[@]} -eq 0 ]]; then
  dbos_page || status=$?
fi
exit "$status"
