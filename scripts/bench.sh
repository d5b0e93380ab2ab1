#!/usr/bin/env bash
# JMH benchmarks of the reservation path, each beside its raw-store baseline from the same run,
# rendered into results/bench/README.md (tables, targets met or missed) and results/bench/chart-*.png.
#
#   bash scripts/bench.sh           full run for publication: Throughput and SampleTime,
#                                   3 x 1 s warmup, 4 x 1.5 s measurement, one fork per benchmark
#   bash scripts/bench.sh --quick   smoke run (under 3 minutes on 2 cores): SampleTime only,
#                                   throughput derived from the mean, very short iterations, and
#                                   only the baseline each published target reads; written to
#                                   results/bench/quick/ (not committed), so the published run stays
#
# Every benchmark runs at 1 and at 4 threads (the in-flight conflict is a group of 4 threads and runs
# at 4 only). STORES=MEMORY,REDIS picks stores; by default every store this build has a raw baseline for.
# Servers come from the lab's infra (IDEMLAB_REDIS_URL / IDEMLAB_PG_URL to use your own).
# Builds bench/target/benchmarks.jar first when it is missing.
set -euo pipefail

cd "$(dirname "$0")/.."

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

stores="${STORES:-$(java -cp "$jar" dev.idemlab.bench.AvailableStores)}"
if [[ "$mode" == quick ]]; then
  timing=(-bm sample -wi 1 -w 300ms -i 1 -r 700ms -f 1)
else
  timing=(-bm thrpt,sample -wi 3 -w 1s -i 4 -r 1500ms -f 1)
fi
server_log=(-jvmArgsAppend "-Didemlab.bench.serverLog=$PWD/$out/servers.txt")

# The benchmarks of one store at 1 and 4 threads: a quick run keeps only the baseline each target
# reads, a full run every baseline. Coordinator and baselines always share one JMH run.
run_store() {
  local store=$1 methods
  if [[ "$mode" == quick ]]; then
    local first=rawReserve again=rawReserve
    [[ "$store" == POSTGRES ]] && first=rawPlainWrite
    [[ "$store" == MEMORY ]] && again=rawPlainRead
    methods="FirstCallBenchmark\\.(coordinator|$first)\$|ReplayBenchmark\\.(coordinator|$again)\$"
  else
    methods='FirstCallBenchmark|ReplayBenchmark'
  fi
  for threads in 1 4; do
    local include="$methods"
    [[ "$threads" == 4 ]] && include="$methods|InFlightBenchmark"
    java -jar "$jar" "$include" -p "store=$store" -t "$threads" "${timing[@]}" "${server_log[@]}" \
      -rf json -rff "$out/jmh-${store,,}-threads-$threads.json"
  done
}

echo "benchmarking stores $stores ($mode run)"
for store in ${stores//,/ }; do
  run_store "$store"
done
for threads in 1 4; do
  java -jar "$jar" 'FingerprintBenchmark' -t "$threads" "${timing[@]}" \
    -rf json -rff "$out/jmh-fingerprint-threads-$threads.json"
done

# SampleTime's raw histograms are megabytes of buckets; the scores and percentiles are kept.
java -cp "$jar" dev.idemlab.bench.report.StripRawData "$out"/jmh-*.json

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ "$commit" != unknown ]] && ! git diff --quiet HEAD -- bench lab 2>/dev/null; then
  commit="$commit (with uncommitted changes)"
fi
command="bash scripts/bench.sh${1:+ $1}"
[[ -n "${STORES:-}" ]] && command="STORES=$STORES $command"
java -Djava.awt.headless=true -cp "$jar" dev.idemlab.bench.report.BenchReport \
  --results "$out" --command "$command" --commit "$commit"
