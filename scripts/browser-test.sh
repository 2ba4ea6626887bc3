#!/usr/bin/env bash
# The live map in a real browser: headless Chromium driven by Selenium against positiond on the demo venue,
# with an API key (so the page must ask for it, send it as a bearer header, and open the live feed with a
# single-use ticket). Posts tracked samples for three devices and checks that three live markers appear
# within 5 s, that the floor switcher swaps the floor (and its plan when the venue has one), that spots and
# beacons are drawn, that colouring the spots by cross-validation error recolours them (the demo venue is
# tuned when recorded), that a plan placed at an angle (by two reference points, set with `survey venue plan`
# while the page is open) is drawn rotated without a reload, that `/` lists the venue, that the page fits a
# phone's screen, and that the page logged no JavaScript error. Then the analytics: after three more devices
# post samples timed now, each zone is labelled with the devices present in it (as the live feed placed them),
# turning the heatmap on draws its cells and the total device time, it follows the floor and turns off; and
# with a key of scope locate the page says presence needs an admin key and stops asking for it, the rest of
# the page working. A survey session opened on the map (?session=ID) shows each batch posted to it as it is
# stored: a spot thin at one sample and covered at four, a second spot, the path growing, the panel's counts.
# A phone walking the venue with one beacon dead has that beacon drawn silent once positiond names it (beacon
# health from live traffic). Saves docs/map.png (README shows it).
#
#   scripts/browser-test.sh
#
# Needs: the binaries (`make release`, or BIN=/folder/with/positiond+survey), and Debian's chromium,
# chromium-driver, python3-selenium and libjs-leaflet (installed when missing; root).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/common.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/browser-test.XXXXXX")
pid=""
cleanup() {
    bf_stop "$pid"
    rm -rf -- "$work"
}
trap cleanup EXIT

bf_apt curl python3 chromium chromium-driver python3-selenium libjs-leaflet
# Debian's Python has Debian's selenium; another python3 first on PATH (pyenv) may not: then PyPI's.
if /usr/bin/python3 -c 'import selenium' 2>/dev/null; then
    BF_PY=/usr/bin/python3
else
    bf_python selenium 'selenium>=4,<5' "$work/venv"
fi
bf_binaries
db="$work/map.sqlite"
bf_demo_db "$db" "$work/survey.log"
key=$("$SURVEY" key create --db "$db" --name browser-test --scope admin --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
port=$(bf_free_port)
# Started here, stopped by PID in the trap.
"$POSITIOND" --db "$db" --host 127.0.0.1 --port "$port" --log-level warning >"$work/positiond.log" 2>&1 &
pid=$!
if ! bf_wait_ready "$port" 30; then
    cat "$work/positiond.log"
    echo "FAIL: positiond did not answer /readyz on port $port within 30 s"
    exit 1
fi
echo "positiond (pid $pid) on http://127.0.0.1:$port with an admin key; $(chromium --version 2>/dev/null)"
status=0
BASE="http://127.0.0.1:$port" KEY="$key" WALK="$root/venues/demo-hall/walk.jsonl" SHOT="$root/docs/map.png" \
    SURVEY="$SURVEY" DB="$db" PLAN="$root/venues/demo-hall/plans/ground.svg" \
    "$BF_PY" scripts/browser-test.py || status=$?
if ! bf_alive "$pid"; then
    echo "positiond died; its log:"
    tail -n 20 "$work/positiond.log"
    status=1
fi
((status == 0)) && echo "PASS: browser-test" || echo "FAIL: browser-test"
exit "$status"
