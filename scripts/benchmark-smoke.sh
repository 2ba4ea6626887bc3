#!/usr/bin/env bash
# Every benchmark of Benchmarks/ built and run briefly, so none can rot unseen: BEACONFIX_BENCHMARK_SMOKE=1
# cuts each to 2 iterations with no warm-up (the tuning benchmark to one tuning of a survey a tenth of the
# size), and the Matcher's `large` and `campus` venues to a tenth of the size a benchmark names (it is then
# named after the size it uses), except the narrowest strongest-beacon locate, which builds the full
# 1,000,000-fingerprint `large` venue. So a map of that size is still built and searched here, and a
# benchmark that crashes on its data fails here. Simulating that venue takes about 2 minutes, in every
# benchmark's own process: at full size for all six of its benchmarks, the Matcher's smoke run took 19 of
# this script's 30 minutes. The figures of a smoke run mean nothing; Benchmarks/README.md gives
# the real ones and the command behind them. A build failure, a crash or a failed benchmark fails the script.
#
# The Benchmarks package builds in the main package's scratch folder (../.build) with `make test`'s flags
# (the Makefile's RELEASE: -enable-testing and --disable-sandbox, which SwiftPM puts on every compiler
# command), so the modules `make test` compiled (SwiftNIO, GRDB, postgres-nio, swift-crypto, the project's
# own) are not compiled a second time: only the benchmark package and the benchmarks are.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
# The same as the Makefile's RELEASE flags (-c release is the benchmark plugin's own choice).
shared_build=(--scratch-path ../.build -Xswiftc -enable-testing --disable-sandbox)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "Benchmark smoke run: every target, 2 iterations each"
status=0
BEACONFIX_BENCHMARK_SMOKE=1 swift package "${shared_build[@]}" benchmark --no-progress >"$log" 2>&1 || status=$?
# The tool's own exit status catches crashes; the messages are checked too, in case a version only prints them.
if [ "$status" -eq 0 ] && grep -qE "Likely your benchmark crashed|benchmark job\(s\) failed|Benchmark failed to run" "$log"; then
    status=1
fi
ran=$(grep -cE "^╒" "$log" || true)
if [ "$status" -ne 0 ]; then
    tail -n 80 "$log"
    echo "benchmark smoke: FAILED (exit $status)"
    exit 1
fi
echo "benchmark smoke: passed, $ran benchmarks ran"
