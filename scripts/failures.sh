#!/usr/bin/env bash
# Publishes the failure lab: each failure scenario, unmitigated then mitigated, on every store where it
# applies, and the stall load (the store's private Redis server paused at a rhythm) per policy, store
# patience and downstream key. Rewrites results/failures/.
#
#   bash scripts/failures.sh                 # everything (about 10 minutes on 2 cores)
#   STALL_DURATION=10s bash scripts/failures.sh   # shorter load runs
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/page.sh

jar=lab/target/lab.jar
[ -f "$jar" ] || ./mvnw -B -q -ntp package -DskipTests
out=results/failures
mkdir -p "$out"
duration=${STALL_DURATION:-30s}
lab() { java -jar "$jar" "$@"; }

# scenario, stores it applies to, extra options
runs=(
  "lease-overrun|memory redis postgres|--policy all"
  "crash-mid-charge|redis postgres|"
  "provider-ambiguous|memory redis postgres|--provider http"
  "store-down|redis postgres|--downstream-key on --provider http"
  "store-down-off|redis postgres|--downstream-key off --provider http"
  "scope|memory redis postgres|"
  "large-result|memory redis postgres|"
  "eviction|redis|"
  "ghost-reservation|redis|"
  "crash-mid-order|postgres|--at each"
  "stale-holder-order|postgres|"
)
# STALL_ONLY=1 reruns only the stall load and rewrites the README around the existing tables;
# SCENARIOS_ONLY=1 reruns only the scenario tables and keeps the stall runs already published;
# ONLY="name ..." narrows that to the scenarios named.
rerun=()  # the NAME-STORE pages this run rewrote: only they are stamped with this commit
for entry in "${runs[@]}"; do
  [ -z "${STALL_ONLY:-}" ] || break
  IFS='|' read -r name stores options <<<"$entry"
  # ONLY="eviction scope" reruns just those scenarios and keeps the others' published tables.
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  scenario=${name%-off}
  for store in $stores; do
    echo "failure lab: $name on $store ..."
    for format in table json markdown; do
      case $format in table) ext=txt ;; json) ext=json ;; markdown) ext=md ;; esac
      # shellcheck disable=SC2086
      lab scenario "$scenario" --store "$store" $options --format "$format" --out "$out/$name-$store.$ext" >/dev/null
    done
    rerun+=("$name-$store")
  done
done
# The combined table per store.
for store in memory redis postgres; do
  for entry in "${runs[@]}"; do
    IFS='|' read -r name stores _ <<<"$entry"
    [ ! -f "$out/$name-$store.txt" ] || { cat "$out/$name-$store.txt"; echo; }
  done > "$out/tables-$store.tmp"
  mv "$out/tables-$store.tmp" "$out/tables-$store.txt"
done

stall_cmd() { echo "java -jar lab/target/lab.jar load --store redis --stall 5s:1500ms --clients 16 --retry-rate 0.3 --provider-latency-ms 20 --duration $duration --policy $1 --store-patience-ms $2 --downstream-key $3"; }
if [ -z "${SCENARIOS_ONLY:-}" ]; then
  : > "$out/stall.txt"
  for key in off on; do
    for patience in 0 2000; do
      for policy in wait raise; do
        cmd=$(stall_cmd "$policy" "$patience" "$key")
        echo "stall: $policy, patience $patience ms, downstream key $key ..."
        {
          echo "\$ $cmd"
          # shellcheck disable=SC2086
          ${cmd/java -jar lab\/target\/lab.jar/lab} --format table 2>/dev/null || echo "(exit $?)"
          echo
        } >> "$out/stall.txt"
      done
    done
  done

fi

java -cp "$jar" dev.idemlab.lab.infra.ServerPromises 2>/dev/null > "$out/servers.txt"

quote() { # scenario -> the post's phrase it tests
  case $1 in
    lease-overrun) echo '"the lease has to outlive the slowest honest attempt"' ;;
    crash-mid-charge) echo '"the old at-least-once behaviour for one request"' ;;
    provider-ambiguous|store-down) echo '"the two together are what \"once\" actually means"' ;;
    scope) echo '"a key is unique per operation"' ;;
    large-result) echo 'a result too large to store is stored as a reference and fetched again on replay' ;;
    eviction) echo 'a record has to outlive the longest plausible retry; an evicted one does not' ;;
    crash-mid-order) echo '"the old at-least-once behaviour for one request", for an effect in the store'"'"'s own database, where it need not be' ;;
    stale-holder-order) echo 'a holder paused past its lease is fenced by the provider; an effect in the store'"'"'s database is fenced by the store' ;;
    ghost-reservation) echo 'a store that stalls is not a store that is gone: a reservation sent before the stall may still land' ;;
  esac
}
{
  echo "# The failure lab: the tables the post implies but never ran"
  echo
  echo "Every figure is read off the counting provider's ledger; each scenario runs its unmitigated variant"
  echo "first (it must show the duplicate) and then its mitigation (it must charge once). \`lab check\` runs"
  echo "the same variants and fails if either stops holding."
  echo
  echo "## What the servers promise"
  echo
  echo '```'
  cat "$out/servers.txt"
  echo '```'
  echo
  echo "The private Redis keeps nothing on disk (no RDB, no AOF): a restart loses every record. The"
  echo "bundled PostgreSQL runs with the settings above as its server reports them; with fsync and"
  echo "synchronous_commit off a crash of the server can lose committed records, so a record's survival"
  echo "there is a claim about the process, not the disk."
  echo
  for entry in "${runs[@]}"; do
    IFS='|' read -r name stores options <<<"$entry"
    scenario=${name%-off}
    echo "## $name"
    echo
    echo "The post: $(quote "$scenario")."
    echo
    echo "Command: \`java -jar lab/target/lab.jar scenario $scenario --store STORE $options\`."
    echo
    for store in $stores; do
      echo '```'
      cat "$out/$name-$store.txt"
      echo '```'
      echo
    done
    echo "Sequence diagrams, with the store as a participant: $(for s in $stores; do printf '[%s](%s) ' "$s" "$name-$s.md"; done)"
    echo
  done
  echo "## The stall experiment"
  echo
  echo "The post: \"pass the key downstream too\". The store's private Redis server is stopped with SIGSTOP for"
  echo "1.5 s every 5 s (then SIGCONT) while 16 clients charge, 30% of requests re-sent concurrently, provider"
  echo "20 ms, $duration per run. Store patience 0 turns every stall past the 1 s command timeout into"
  echo "fail-open; the default 2 s rides it out. With the downstream key the provider deduplicates, so"
  echo "the ledger holds no duplicate even where the coordinator failed open."
  echo
  echo '```'
  grep -E '^\$ |^faults:|^  store |^  redis ' "$out/stall.txt"
  echo '```'
  echo
  echo "Full output, latency included: [stall.txt](stall.txt)."
} > "$out/README.md"
command="bash scripts/failures.sh"
for var in ONLY SCENARIOS_ONLY STALL_ONLY STALL_DURATION; do
  [[ -z "${!var:-}" ]] || command="$var=\"${!var}\" $command"
done
page_stamp "$out/README.md" "The failure lab" "$command" memory redis postgres
for page in "${rerun[@]}"; do
  page_stamp "$out/$page.md" "The failure lab: ${page%-*} on ${page##*-}" "$command" "${page##*-}"
done
echo "wrote $out/README.md"
