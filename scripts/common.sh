# shellcheck shell=bash
# Helpers shared by the scripts that start positiond or survey (every one builds through bf_binaries,
# so through `make release`). Source it from the repository root (`. scripts/common.sh`); it defines functions and sets nothing else.
#
#   bf_binaries            POSITIOND and SURVEY: "$BIN/positiond" and "$BIN/survey" when BIN is set,
#                          otherwise `make release` (the flags `make test` builds with, so a no-op after it)
#                          and .build/release/
#   bf_apt PACKAGE...      installs the Debian packages that are missing (apt-get; needs root)
#   bf_python MODULE SPEC VENV
#                          BF_PY: a python3 that imports MODULE, installing SPEC from PyPI when needed, into
#                          the virtual environment VENV when the system's pip refuses
#   bf_alive PID           whether PID runs (kill -0 also succeeds on a zombie that was not waited for)
#   bf_free_port           prints a free TCP port of 127.0.0.1
#   bf_wait_ready PORT S   waits up to S seconds for /readyz on 127.0.0.1:PORT to answer 200
#   bf_demo_db DB LOG      a database with the demo venue imported and recorded (tuned); output to LOG

bf_binaries() {
    if [[ -n "${BIN:-}" ]]; then
        POSITIOND="$BIN/positiond"
        SURVEY="$BIN/survey"
    else
        echo "building: make release (a no-op after make test; about 20 minutes on a fresh clone)" >&2
        if ! make release >"${TMPDIR:-/tmp}/beaconfix-make-release.log" 2>&1; then
            tail -n 40 "${TMPDIR:-/tmp}/beaconfix-make-release.log" >&2
            echo "FAIL: make release failed (full log: ${TMPDIR:-/tmp}/beaconfix-make-release.log)" >&2
            return 1
        fi
        POSITIOND="$PWD/.build/release/positiond"
        SURVEY="$PWD/.build/release/survey"
    fi
    local binary
    for binary in "$POSITIOND" "$SURVEY"; do
        [[ -x "$binary" ]] || { echo "FAIL: $binary is missing or not executable" >&2; return 1; }
    done
}

bf_apt() {
    local missing=() package
    for package in "$@"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    ((${#missing[@]} == 0)) && return 0
    echo "installing (apt-get): ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

bf_python() {
    local module=$1 spec=$2 venv=$3
    BF_PY=python3
    "$BF_PY" -c "import $module" 2>/dev/null && return 0
    echo "installing (pip): $spec"
    if python3 -m pip install --quiet "$spec" >/dev/null 2>&1 && python3 -c "import $module" 2>/dev/null; then
        return 0
    fi
    # A Python that refuses system-wide installs (PEP 668): a virtual environment of its own.
    [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv" || { bf_apt python3-venv && python3 -m venv "$venv"; }
    "$venv/bin/python" -m pip install --quiet "$spec" >/dev/null
    BF_PY="$venv/bin/python"
    "$BF_PY" -c "import $module"
}

# PID: stops a process a script started (SIGTERM) and reaps it; nothing for an empty PID.
bf_stop() {
    [[ -n "$1" ]] || return 0
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

bf_alive() {
    local state
    state=$(sed -E 's/^.*\) ([A-Za-z]).*$/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
    [[ -n "$state" && "$state" != Z && "$state" != X ]]
}

bf_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

bf_wait_ready() {
    local port=$1 seconds=$2 deadline
    deadline=$((SECONDS + seconds))
    while ((SECONDS < deadline)); do
        curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/readyz" && return 0
        sleep 0.1
    done
    return 1
}

bf_demo_db() {
    local db=$1 log=$2
    "$SURVEY" venue import --db "$db" venues/demo-hall/venue.json >>"$log" 2>&1 &&
        "$SURVEY" record --db "$db" --venue demo-hall venues/demo-hall/survey.jsonl >>"$log" 2>&1 || {
        cat "$log" >&2
        echo "FAIL: could not load the demo venue into $db" >&2
        return 1
    }
}
