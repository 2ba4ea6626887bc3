#!/usr/bin/env bash
# Load test of positiond on the demo venue: stateless locates (5 samples a request), tracked samples of
# 1,000 phones (1 sample a request, what a phone posts each second), and a trivial route of the same server
# in the same run. Prints req/s, p50 and p99 latency, and the ratios locate / trivial and samples / trivial.
# Tracked samples are measured twice a round: on the daemon recording the visitor history (the default)
# and on a second daemon of the same build and file started with --history-enabled false; the ratio of the
# two says what the history costs the hot path.
# Needs wrk (apt-get install wrk). Usage: scripts/loadtest.sh [seconds] [connections] [rounds]
# BIN=folder measures the positiond and survey of that folder instead of building them (`make release`'s).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNECTIONS=${2:-32}
ROUNDS=${3:-3}
PORT=${PORT:-18080}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }

. scripts/common.sh
bf_binaries # BIN=folder: its binaries; otherwise `make release`, the flags make run and make test use
BIN=$(dirname "$POSITIOND")
work=$(mktemp -d)
db="$work/loadtest.sqlite"
"$BIN/survey" venue import --db "$db" venues/demo-hall/venue.json >/dev/null
"$BIN/survey" record --db "$db" --venue demo-hall venues/demo-hall/survey.jsonl >/dev/null

# Started here, stopped here, by PID. Logs at warning: per-request info lines would measure the terminal.
POSITIOND_LOG_LEVEL=warning "$BIN/positiond" --db "$db" --port "$PORT" --devices-max 100000 >"$work/positiond.log" 2>&1 &
pid=$!
POSITIOND_LOG_LEVEL=warning "$BIN/positiond" --db "$db" --port "$((PORT + 1))" --devices-max 100000 --history-enabled false \
  >"$work/positiond-off.log" 2>&1 &
pid_off=$!
trap 'kill "$pid" "$pid_off" 2>/dev/null; wait "$pid" "$pid_off" 2>/dev/null; rm -rf "$work"' EXIT
for port in "$PORT" "$((PORT + 1))"; do
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
  done
done

run() {
  local per=5 port=$PORT mode=$1
  [ "$mode" = samples ] && per=1
  # samples-off: the same tracked samples, on the daemon that records no history.
  [ "$mode" = samples-off ] && { per=1; mode=samples; port=$((PORT + 1)); }
  MODE=$mode PER=$per WALK=venues/demo-hall/walk.jsonl VENUE=demo-hall \
    wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s scripts/loadtest.lua "http://127.0.0.1:$port" | grep '^RESULT' \
    | { [ "$1" = samples-off ] && sed 's/ samples / samples-off /' || cat; }
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); positiond and wrk share them"
echo "wrk -t2 -c$CONNECTIONS -d${DURATION}s against http://127.0.0.1:$PORT (demo-hall: $(sqlite3 "$db" 'select count(*) from fingerprint' 2>/dev/null || echo 240) fingerprints)"
# The routes take turns, ROUNDS times: on a shared machine, load from elsewhere drifts over a minute, and
# a ratio of two measurements taken back to back is steadier than one of measurements a minute apart.
printf '%-6s %-11s %10s %10s %10s %8s\n' round route req/s p50_ms p99_ms errors
ratios=()
for round in $(seq 1 "$ROUNDS"); do
  declare -A rate=()
  # The two sample runs swap order each round, so neither always runs second on a warmer machine.
  order="samples samples-off"
  [ $((round % 2)) -eq 0 ] && order="samples-off samples"
  for mode in trivial locate $order; do
    set -- $(run "$mode")
    rate[$mode]=$3
    printf '%-6s %-11s %10s %10s %10s %8s\n' "$round" "$2" "$3" "$4" "$5" "$6"
  done
  ratios+=("$(awk -v l="${rate[locate]}" -v s="${rate[samples]}" -v o="${rate[samples-off]}" -v t="${rate[trivial]}" 'BEGIN { printf "%.2f %.2f %.3f", l / t, s / t, s / o }')")
done
for i in "${!ratios[@]}"; do
  set -- ${ratios[$i]}
  echo "round $((i + 1)): locate / trivial = $1, samples / trivial = $2, samples with history / without = $3"
done
middle=$(( (${#ratios[@]} + 1) / 2 ))
locate_median=$(printf '%s\n' "${ratios[@]}" | awk '{ print $1 }' | sort -n | sed -n "${middle}p")
samples_median=$(printf '%s\n' "${ratios[@]}" | awk '{ print $2 }' | sort -n | sed -n "${middle}p")
history_median=$(printf '%s\n' "${ratios[@]}" | awk '{ print $3 }' | sort -n | sed -n "${middle}p")
echo "median of ${#ratios[@]} rounds: locate / trivial = $locate_median, samples / trivial = $samples_median, samples with history / without = $history_median"
rows=$(sqlite3 "$db" "select (select count(*) from zoneVisit) || ' visits, ' || (select count(*) from positionTrace) || ' trace points, ' || (select count(*) from devicePresence) || ' devices seen'" 2>/dev/null || echo "sqlite3 missing: not counted")
echo "history written during the run: $rows"
