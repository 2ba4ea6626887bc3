#!/usr/bin/env bash
# A/B load test of two positiond builds on one machine: both daemons run on copies of one demo database,
# and wrk turns between them route by route (trivial, locate with 5 samples, tracked samples with 1), so
# load from elsewhere hits both alike and their req/s compare directly. Prints one RESULT line per run:
# round, build (a or b), route, req/s, p50 ms, p99 ms, errors. Needs wrk.
#
#   scripts/loadtest-ab.sh A_FOLDER B_FOLDER [seconds] [rounds]    each folder holds positiond and survey
#
# A_FLAGS and B_FLAGS add positiond flags to one side: one build against itself with a feature off, e.g.
#   A_FLAGS='--health-enabled false' scripts/loadtest-ab.sh .build/release .build/release
set -euo pipefail
cd "$(dirname "$0")/.."
(($# >= 2)) || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
a_bin=$1 b_bin=$2 seconds=${3:-8} rounds=${4:-3}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
. scripts/common.sh
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf -- "$work"
}
trap cleanup EXIT
"$a_bin/survey" venue import --db "$work/a.sqlite" venues/demo-hall/venue.json >/dev/null
"$a_bin/survey" record --db "$work/a.sqlite" --venue demo-hall venues/demo-hall/survey.jsonl >/dev/null 2>&1
cp "$work/a.sqlite" "$work/b.sqlite"
ports=()
for build in a b; do
    bin=$a_bin flags=${A_FLAGS:-}
    [[ $build == b ]] && bin=$b_bin flags=${B_FLAGS:-}
    port=$(bf_free_port)
    # Started here, stopped by PID in the trap. $flags is a list of flags: split on purpose.
    # shellcheck disable=SC2086
    POSITIOND_LOG_LEVEL=warning "$bin/positiond" --db "$work/$build.sqlite" --port "$port" --devices-max 100000 $flags >"$work/$build.log" 2>&1 &
    pids+=($!)
    ports+=("$port")
    bf_wait_ready "$port" 30 || { cat "$work/$build.log"; echo "FAIL: positiond of $bin did not get ready" >&2; exit 1; }
done
echo "a: $a_bin ${A_FLAGS:-} (port ${ports[0]}), b: $b_bin ${B_FLAGS:-} (port ${ports[1]}); wrk -t2 -c32 -d${seconds}s, $rounds rounds"
for round in $(seq 1 "$rounds"); do
    for build in 0 1; do
        for mode in trivial locate samples; do
            per=5; [[ $mode == samples ]] && per=1
            result=$(MODE=$mode PER=$per WALK=venues/demo-hall/walk.jsonl VENUE=demo-hall \
                wrk -t2 -c32 -d"${seconds}s" -s scripts/loadtest.lua "http://127.0.0.1:${ports[$build]}" | grep '^RESULT')
            echo "$round $([[ $build == 0 ]] && echo a || echo b) ${result#RESULT }"
        done
    done
done
