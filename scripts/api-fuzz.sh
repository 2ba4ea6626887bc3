#!/usr/bin/env bash
# API fuzzing of positiond against its own OpenAPI document (/openapi.json) with schemathesis 4: starts
# positiond on the demo venue (a temporary database) on a free loopback port and runs the examples,
# fuzzing and stateful phases for at least SECONDS, with the checks not_a_server_error (no 5xx),
# response_schema_conformance (bodies match the document) and status_code_conformance (every status is
# documented). Any failure, or positiond dying, fails the script. The coverage phase is left out: it
# crashes inside schemathesis 4.32 itself.
#
#   scripts/api-fuzz.sh [SECONDS]     default 60
#
# Needs: the binaries (`make release`, or BIN=/folder/with/positiond+survey to skip the build), curl and
# python3 (installed from Debian when missing), schemathesis 4 (installed from PyPI when missing, into a
# temporary virtual environment if the system's pip refuses). scripts/api-fuzz.toml steers most requests
# to the demo venue, its beacons and a few device ids. SEED=N replays one run (schemathesis prints it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/common.sh

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
duration=${1:-60}
[[ "$duration" =~ ^[0-9]+$ ]] && ((duration >= 1)) || usage

work=$(mktemp -d "${TMPDIR:-/tmp}/api-fuzz.XXXXXX")
pid=""
cleanup() {
    bf_stop "$pid"
    rm -rf -- "$work"
}
trap cleanup EXIT

bf_apt curl python3
bf_binaries
# schemathesis 4 (the flags below are 4.x's): the one on PATH, else pip's, else a temporary venv's.
st_version() { [[ "$("$1" --version 2>/dev/null)" == *'version 4.'* ]]; }
st=$(command -v schemathesis || true)
if [[ -z "$st" ]] || ! st_version "$st"; then
    echo "installing (pip): schemathesis>=4,<5"
    python3 -m pip install --quiet 'schemathesis>=4,<5' >/dev/null 2>&1 || true
    st=$(command -v schemathesis || true)
    if [[ -z "$st" ]] || ! st_version "$st"; then
        python3 -m venv "$work/venv" || { bf_apt python3-venv && python3 -m venv "$work/venv"; }
        "$work/venv/bin/python" -m pip install --quiet 'schemathesis>=4,<5' >/dev/null
        st="$work/venv/bin/schemathesis"
    fi
fi
"$st" --version

db="$work/fuzz.sqlite"
bf_demo_db "$db" "$work/survey.log"
port=$(bf_free_port)
# Started here, stopped by PID in the trap. Warnings only: the fuzzer's requests would flood the log.
"$POSITIOND" --db "$db" --host 127.0.0.1 --port "$port" --log-level warning >"$work/positiond.log" 2>&1 &
pid=$!
if ! bf_wait_ready "$port" 30; then
    cat "$work/positiond.log"
    echo "FAIL: positiond did not answer /readyz on port $port within 30 s"
    exit 1
fi
url="http://127.0.0.1:$port"
echo "positiond $POSITIOND (pid $pid) on $url, database $db (demo-hall)"

# --max-time is schemathesis's time budget (fuzzing and stateful testing repeat until it is spent); should
# a run end sooner, the next one gets the time left, so that the fuzzing lasts at least SECONDS.
started=$SECONDS
status=0
runs=0
summaries=()
while ((SECONDS - started < duration)); do
    left=$((duration - (SECONDS - started)))
    runs=$((runs + 1))
    seed=()
    [[ -n "${SEED:-}" ]] && seed=(--seed "$SEED")
    set +e
    # From the temporary folder: schemathesis keeps replay data in ./.schemathesis.
    (cd "$work" && "$st" --config-file "$root/scripts/api-fuzz.toml" run "$url/openapi.json" --url "$url" \
        --checks not_a_server_error,response_schema_conformance,status_code_conformance \
        --phases examples,fuzzing,stateful --max-time "$((left > 5 ? left : 5))" --request-timeout 10 \
        --continue-on-failure --generation-database none --no-color "${seed[@]}") 2>&1 | tee "$work/schemathesis.$runs.log"
    status=${PIPESTATUS[0]}
    set -e
    summaries+=("$(grep -A1 '^Test cases:' "$work/schemathesis.$runs.log" | tail -n 1 | xargs) ($(grep -E '^=+ .* in [0-9.]+s =+$' "$work/schemathesis.$runs.log" | tail -n 1 | tr -d '=' | xargs))")
    ((status == 0)) || break
done
elapsed=$((SECONDS - started))

alive=yes
bf_alive "$pid" || alive=no
echo
echo "== api-fuzz summary"
for i in "${!summaries[@]}"; do echo "schemathesis run $((i + 1)): ${summaries[$i]}"; done
echo "fuzzed for ${elapsed} s (asked: at least ${duration} s); positiond still running: $alive"
if ((status != 0)) || [[ $alive == no ]]; then
    [[ $alive == no ]] && { echo "positiond log:"; tail -n 20 "$work/positiond.log"; }
    echo "FAIL: api-fuzz (schemathesis exit $status; failures above, each with a curl line to reproduce)"
    exit 1
fi
echo "PASS: api-fuzz"
