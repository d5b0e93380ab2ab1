#!/usr/bin/env bash
# JMH benchmarks of the reservation path, each beside its raw-store baseline from the same run,
# rendered into results/bench/README.md (tables, targets met or missed) and results/bench/chart-*.png.
#
#   bash scripts/bench.sh           full run for publication: Throughput and SampleTime,
#                                   3 x 1 s warmup, 4 x 1.5 s measurement, one fork per benchmark
#                                   (ITERATIONS=3 ITERATION_TIME=1s for a shorter measurement)
#   bash scripts/bench.sh --quick   smoke run (under 3 minutes on 2 cores): SampleTime only,
#                                   throughput derived from the mean, very short iterations, and
#                                   only the baseline each published target reads; written to
#                                   results/bench/quick/ (not committed), so the published run stays
#
# Every benchmark runs at 1 thread and at as many threads as the machine has cores (the in-flight
# conflict is a group of 4 threads and runs in the second pass, at 4 or a multiple of 4; with fewer
# cores its figures are reported, not judged), with JMH's -prof gc, so every row carries its
# allocation per operation. On redis the coordinator also runs beside the Redisson RLock idiom
# (RedissonBenchmark) in the same JMH run.
# Then the network stores again on durable servers (PostgreSQL fsync=on, synchronous_commit=on; Redis
# appendonly yes, appendfsync everysec), rendered into durable/README.md beside the page; DURABLE=0
# skips that pass. STORES=MEMORY,REDIS picks stores; by default every store this build has a raw baseline for.
# Servers come from the lab's infra (IDEMLAB_REDIS_URL / IDEMLAB_PG_URL to use your own).
# Builds bench/target/benchmarks.jar first when it is missing.
set -euo pipefail

cd "$(dirname "$0")/.."
source scripts/lib/page.sh

mode=full
case "${1:-}" in
  "") ;;
  --quick) mode=quick ;;
  *) echo "usage: bash scripts/bench.sh [--quick]" >&2; exit 2 ;;
esac

jar=bench/target/benchmarks.jar
if [[ ! -f "$jar" ]]; then
  echo "building $jar"
  ./mvnw -B -q package -DskipTests
fi

out=results/bench
[[ "$mode" == quick ]] && out=results/bench/quick
mkdir -p "$out"
rm -f "$out"/*.json "$out"/servers.txt "$out"/chart-*.png "$out"/README.md
rm -rf "$out"/durable

stores="${STORES:-$(java -cp "$jar" dev.idemlab.bench.AvailableStores)}"
if [[ "$mode" == quick ]]; then
  timing=(-bm sample -wi 1 -w 300ms -i 1 -r 700ms -f 1)
else
  timing=(-bm thrpt,sample -wi 3 -w 1s -i "${ITERATIONS:-4}" -r "${ITERATION_TIME:-1500ms}" -f 1)
fi
profile=(-prof gc)
# Targets are judged at 1 thread and at one thread per core: more threads than cores measure waiting
# for a core as much as the store.
cores="$(nproc)"
thread_counts="1"
[[ "$cores" != 1 ]] && thread_counts="1 $cores"

# The benchmarks of one store at 1 and 4 threads: a quick run keeps only the baseline each target
# reads, a full run every baseline. Coordinator and baselines always share one JMH run.
run_store() {
  local store=$1 dir=$2 durable=$3 methods
  if [[ "$mode" == quick ]]; then
    local first=rawReserve again=rawPlainRead
    [[ "$store" != MEMORY ]] && first=rawPlainWrite
    methods="FirstCallBenchmark\\.(coordinator|$first)\$|ReplayBenchmark\\.(coordinator|$again)\$"
  else
    methods='FirstCallBenchmark|ReplayBenchmark'
  fi
  [[ "$store" == REDIS ]] && methods="$methods|RedissonBenchmark"
  for threads in $thread_counts; do
    local include="$methods"
    [[ "$threads" == "$cores" ]] && include="$methods|InFlightBenchmark"
    java -jar "$jar" "$include" -p "store=$store" -t "$threads" "${timing[@]}" "${profile[@]}" \
      -jvmArgsAppend "-Didemlab.bench.serverLog=$dir/servers.txt -Didemlab.bench.durable=$durable" \
      -rf json -rff "$dir/jmh-${store,,}-threads-$threads.json"
  done
}

echo "benchmarking stores $stores ($mode run)"
for store in ${stores//,/ }; do
  run_store "$store" "$out" false
done
for threads in $thread_counts; do
  java -jar "$jar" 'FingerprintBenchmark' -t "$threads" "${timing[@]}" "${profile[@]}" \
    -rf json -rff "$out/jmh-fingerprint-threads-$threads.json"
done
# The @Idempotent proxy beside the same call made on the coordinator, on memory (the page's "proxy" section).
if [[ ",$stores," == *,MEMORY,* ]]; then
  for threads in $thread_counts; do
    java -jar "$jar" 'ProxyBenchmark' -t "$threads" "${timing[@]}" "${profile[@]}" \
      -rf json -rff "$out/jmh-proxy-threads-$threads.json"
  done
fi
durable_stores=""
if [[ "${DURABLE:-1}" != 0 ]]; then
  for store in ${stores//,/ }; do
    [[ "$store" != MEMORY ]] && durable_stores="$durable_stores $store"
  done
fi
if [[ -n "$durable_stores" ]]; then
  echo "benchmarking stores$durable_stores on durable servers"
  mkdir -p "$out/durable"
  for store in $durable_stores; do
    run_store "$store" "$out/durable" true
  done
fi

# SampleTime's raw histograms are megabytes of buckets; the scores and percentiles are kept.
java -cp "$jar" dev.idemlab.bench.report.StripRawData "$out"/jmh-*.json
[[ -d "$out/durable" ]] && java -cp "$jar" dev.idemlab.bench.report.StripRawData "$out"/durable/jmh-*.json

command="bash scripts/bench.sh${1:+ $1}"
for var in ITERATION_TIME ITERATIONS DURABLE STORES; do
  [[ -n "${!var:-}" ]] && command="$var=${!var} $command"
done
java -Djava.awt.headless=true -cp "$jar" dev.idemlab.bench.report.BenchReport --results "$out"
if [[ -d "$out/durable" ]]; then
  java -Djava.awt.headless=true -cp "$jar" dev.idemlab.bench.report.BenchReport --results "$out/durable"
  {
    echo
    echo "## Durable servers"
    echo
    echo "The same benchmarks on servers that keep an acknowledged write: PostgreSQL with fsync=on and"
    echo "synchronous_commit=on, Redis with appendonly yes and appendfsync everysec, as each server reports"
    echo "on the servers line: [durable/README.md](durable/README.md). The page above ran on the fast"
    echo "configuration, whose settings its servers line names too."
  } >> "$out/README.md"
fi

# The servers each page ran on, for the header every results page carries.
kinds=() durable_kinds=()
for store in ${stores//,/ }; do
  kinds+=("${store,,}")
  [[ "$store" != MEMORY ]] && durable_kinds+=("${store,,}-durable")
done
page_stamp "$out/README.md" "Reservation path" "$command" "${kinds[@]}"
if [[ -f "$out/durable/README.md" ]]; then
  page_stamp "$out/durable/README.md" "Reservation path on durable servers" "$command (durable pass)" "${durable_kinds[@]}"
fi
