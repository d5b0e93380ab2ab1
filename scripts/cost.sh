#!/usr/bin/env bash
# What a completed record costs each store, by the server's own accounting, beside the same JSON
# written raw with the same ttl: Redis MEMORY USAGE of every key under the store's prefix against a
# SET ... PX; PostgreSQL table size with indexes against a table of key, JSON and expiry. Also what a
# released reservation leaves behind, and on Redis the server's own time per call against its floor.
# Writes results/bench/record-cost.md; exits 0 when the page was written, a missed target included. The lab's own private
# servers only (the command reads their counters).
#
#   bash scripts/cost.sh                 100,000 records of a 211-byte result per store
#   RECORDS=10000 bash scripts/cost.sh   a quicker look
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

jar=lab/target/lab.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi
records="${RECORDS:-100000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
java -jar "$jar" cost --records "$records" --format markdown --out "$work/cost.md" || status=$?
# Exit 1 is a target missed, which the page reports; any other failure, or no report, leaves the
# published page as it was.
if [[ ! -s "$work/cost.md" ]] || (( status > 1 )); then
  echo "lab cost failed (exit $status); results/bench/record-cost.md left as it was" >&2
  exit 1
fi
out=results/bench/record-cost.md
{
  echo "# What a completed record costs"
  echo
  echo "The lab ran \`java -jar lab/target/lab.jar cost --records $records --format markdown\`."
  echo "Each record is written as the coordinator writes it (a reserve, then a complete with the result, ttl"
  echo "24 h); the raw write beside it holds the same JSON under a key of the same length with the same ttl."
  echo "One reservation in ten is also released, as after a failed action, and what it left is counted."
  echo "The target is the cost issue's: a completed record at most 1.3x its raw SET on Redis, every key counted;"
  echo "PostgreSQL has no size target (its rows are the sweep's to bound) and is shown as written and compacted."
  echo "On Redis the server's own time per call is read too (INFO commandstats, reset before each of the five"
  echo "measurements): a first call's two scripts against SET NX PX then SET XX PX of the same JSON (target at"
  echo "most 3x), and a replay, the reserve script finding the completed record as the coordinator replays,"
  echo "against GET (target at most 2x), the cost issue's targets; the lookup script a waiter reads with is"
  echo "shown beside it."
  echo
  cat "$work/cost.md"
  echo
  echo "A Redis record is one key of schema version 3: \`3|c|\`, the request's SHA-256 as its 32 bytes, then"
  echo "the JSON (36 bytes before it). The hex fingerprint and its bar (69 bytes) pushed a 211-byte result from"
  echo "the allocator's 256-byte class into the 320-byte one; 32 bytes keep all 256 bits, so a reused key is"
  echo "told apart as before and the key-reuse error still shows both fingerprints in hex. A reservation keeps"
  echo "its fence in its record (\`3|p|<fingerprint><fence>|<token>\`): there is no counter key beside it."
  echo
  echo "Where the scripts' remaining server time goes: a first call is two scripts, reserve (GET, TIME, SET)"
  echo "and complete (GET, SET, PUBLISH of the ending with the record, so that waiters need not read it), six"
  echo "commands where the floor sends two. The commands themselves cost about what they cost a client (the"
  echo "lines above); most of the time is the scripts' own, and on Redis 6.2 it is fixed cost, not string work."
  echo "Each EVALSHA pays for entering Lua and building its KEYS and ARGV tables (a script that only returns 1"
  echo "costs the server more than a GET of the record); each command a script runs goes through the script's"
  echo "own client: its arguments made into objects, the command looked up and checked, its reply written in"
  echo "RESP and parsed back into a Lua value, none of which the command's own line counts. The scripts build"
  echo "no record: the client sends the reservation's head, the completed record and the ending's message"
  echo "head (complete joins it to the record once), and the scripts answer a fence or a replayed record as a"
  echo "bare value rather than a table, whose reply costs about as much as a GET. A replay is one script"
  echo "around one GET, against the bare GET: the"
  echo "script's entry alone is more than the 2x the target allows."
  echo
  echo "On PostgreSQL the size is the table's as the writes left it: each completion updates the row its"
  echo "reservation inserted, so a dead tuple per record stays until vacuum makes its space reusable (the"
  echo "file does not shrink); the raw table was only inserted into."
} > "$work/page.md"
command="bash scripts/cost.sh"
[[ -n "${RECORDS:-}" ]] && command="RECORDS=$RECORDS $command"
page_stamp "$work/page.md" "What a completed record costs" "$command" redis postgres
mv "$work/page.md" "$out"
echo "wrote $out"
(( status == 0 )) || echo "a target was missed; the page says which"
