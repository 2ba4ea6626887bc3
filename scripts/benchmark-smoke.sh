#!/usr/bin/env bash
# Every benchmark of Benchmarks/ built and run briefly, so none can rot unseen: BEACONFIX_BENCHMARK_SMOKE=1
# cuts each to 2 iterations with no warm-up (the tuning benchmark to one tuning of a survey a tenth of the
# size, the analytics to a day of 1,000 devices), and the Matcher's `large` and `campus` venues to a tenth
# of the size a benchmark names and at most 10,000 fingerprints (it is then named after the size it uses),
# except the narrowest strongest-beacon locate, which builds the full 1,000,000-fingerprint `large` venue.
# So a map of that size is still built and searched here, and a benchmark that crashes on its data fails
# here. Simulating a venue happens in every benchmark's own process, and is what a smoke run spends its time
# on. The figures of a smoke run mean nothing; Benchmarks/README.md gives the real ones and the command
# behind them. A build failure, a crash or a failed benchmark fails the script.
#
#   scripts/benchmark-smoke.sh                      build, then run every benchmark target
#   scripts/benchmark-smoke.sh --build-only         build the benchmark targets, run none
#   scripts/benchmark-smoke.sh --target REGEX       run the targets matching REGEX (--skip-target: all others)
#
# .ci/run builds first (--build-only), while the checks on the binaries run beside it, then runs them all.
#
# The Benchmarks package builds in the main package's scratch folder (../.build) with `make test`'s flags
# (the Makefile's RELEASE: --disable-sandbox, which SwiftPM puts on every compiler
# command), so the modules `make test` compiled (SwiftNIO, GRDB, postgres-nio, swift-crypto, the project's
# own) are not compiled a second time: only the benchmark package and the benchmarks are.
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$0")/../Benchmarks"
# The same as the Makefile's RELEASE flags (-c release is the benchmark plugin's own choice).
shared_build=(--scratch-path ../.build --disable-sandbox)
selection=()
build_only=false
while (($#)); do
    case $1 in
        --build-only) build_only=true ;;
        --target | --skip-target)
            (($# >= 2)) || { echo "usage: $0 [--build-only | --target REGEX | --skip-target REGEX]" >&2; exit 2; }
            selection+=("$1" "$2")
            shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "usage: $0 [--build-only | --target REGEX | --skip-target REGEX]" >&2; exit 2 ;;
    esac
    shift
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if $build_only; then
    echo "Benchmark build: every benchmark target, release"
    if ! swift build -c release "${shared_build[@]}" >"$log" 2>&1; then
        tail -n 80 "$log"
        echo "benchmark build: FAILED"
        exit 1
    fi
    echo "benchmark build: $(grep -cE '^\[[0-9]+/[0-9]+\] Compiling' "$log" || true) compile steps, done"
    exit 0
fi

echo "Benchmark smoke run: ${selection[*]:-every target}, 2 iterations each"
status=0
BEACONFIX_BENCHMARK_SMOKE=1 swift package "${shared_build[@]}" benchmark "${selection[@]}" --no-progress >"$log" 2>&1 || status=$?
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
if [ "$ran" -eq 0 ]; then
    tail -n 40 "$log"
    echo "benchmark smoke: FAILED (no benchmark ran: ${selection[*]})"
    exit 1
fi
echo "benchmark smoke: passed, $ran benchmarks ran (${selection[*]:-every target})"
