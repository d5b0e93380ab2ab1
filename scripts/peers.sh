#!/usr/bin/env bash
# The post's experiments on the Java idempotency libraries teams use, beside this project's
# coordinator: `lab peers --load` on one private Redis, published in results/peers/.
#
#   bash scripts/peers.sh                      every library, with the load run
#   bash scripts/peers.sh camel,redisson-lock  only the libraries named (lab peers --library)
#
# Writes peers.txt (as printed), peers.json (every call, the ledgers, the load counts), peers.md
# (the matrix, each library's table and in-flight sequence diagram) and README.md (the same page
# with the command, commit, JDK, cores and Redis server that produced it). The Redis comes from the
# lab's own provisioning (IDEMLAB_REDIS_URL to use your own). Builds lab/target/lab.jar first when
# it is missing. Exits 1 when this project's wait or raise row is wrong; other libraries' verdicts
# are reported, not gated.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

libraries=()
case "${1:-}" in
  "") ;;
  -*) echo "usage: bash scripts/peers.sh [LIBRARY[,LIBRARY...]]" >&2; exit 2 ;;
  *) libraries=(--library "$1") ;;
esac

jar=lab/target/lab.jar
[[ -f "$jar" ]] || ./mvnw -B -q -ntp package -DskipTests

out=results/peers
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
exit "$status"
