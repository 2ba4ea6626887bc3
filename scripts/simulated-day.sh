#!/usr/bin/env bash
# A simulated day of the demo hall, end to end: `survey simulate --visitors` walks visitors through
# demo-hall over the last hours (the propagation simulator gives each one a sample a second), their phones'
# samples go to a real positiond's tracked route, positiond records the visitor history, and `survey
# analytics` answers presence, dwell, a funnel and a heatmap from the same file. docs/analytics.md shows its output.
# Usage: scripts/simulated-day.sh [visitors]   BIN=folder uses the positiond and survey built there.
set -euo pipefail
cd "$(dirname "$0")/.."
VISITORS=${1:-40}
PORT=${PORT:-18090}
. scripts/common.sh
bf_binaries # BIN=folder: its binaries; otherwise `make release`
BIN=$(dirname "$POSITIOND")
work=$(mktemp -d)
db="$work/day.sqlite"
"$BIN/survey" venue import --db "$db" venues/demo-hall/venue.json >/dev/null
"$BIN/survey" record --db "$db" --venue demo-hall venues/demo-hall/survey.jsonl >/dev/null
"$BIN/survey" simulate --out "$work/sim" --visitors "$VISITORS" | grep visitors.jsonl

POSITIOND_LOG_LEVEL=warning "$BIN/positiond" --db "$db" --port "$PORT" >"$work/positiond.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break
  sleep 0.1
done
python3 scripts/simulated-day.py "$work/sim/visitors.jsonl" "$PORT"
sleep 2  # the history writer runs every second
echo
echo "\$ curl http://127.0.0.1:$PORT/v1/venues/demo-hall/analytics/presence   (admin scope; this file has no key)"
curl -s "http://127.0.0.1:$PORT/v1/venues/demo-hall/analytics/presence"
echo
# Stopping closes every visit still open at its device's last sighting (a graceful shutdown writes them),
# as going idle for devices.idle.seconds would: the visitors who left hours ago, in this replayed day.
kill -TERM "$pid"; wait "$pid" || true

from=$(date -u -d '-10 hours' +%Y-%m-%dT%H:00:00Z)
to=$(date -u -d '+1 hour' +%Y-%m-%dT%H:00:00Z)
run() { echo; echo "\$ survey analytics $*"; "$BIN/survey" analytics "$@" --db "$db"; }
run presence --venue demo-hall --window 300
run dwell --venue demo-hall --from "$from" --to "$to"
run funnel --venue demo-hall --zones "Entrance,Main hall,Bar" --from "$from" --to "$to" --within 3600
run heatmap --venue demo-hall --floor 0 --cell 2 --from "$from" --to "$to"
run dwell --venue demo-hall --from "$from" --to "$to" --json | head -12
# The day's traffic was also evidence of the beacons' health: every beacon was alive, so none may leave
# healthy or insufficient_evidence.
echo; echo "\$ survey beacons --venue demo-hall"; "$BIN/survey" beacons --venue demo-hall --db "$db"
