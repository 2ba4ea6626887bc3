#!/usr/bin/env bash
# Load test of positiond on the demo venue: stateless locates, tracked samples of 1,000 phones, and a
# trivial route of the same server in the same run. Prints req/s, p50 and p99 latency, and the ratio
# locate / trivial. Needs wrk (apt-get install wrk). Usage: scripts/loadtest.sh [seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNECTIONS=${2:-32}
PORT=${PORT:-18080}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }

swift build -c release --product positiond >/dev/null
swift build -c release --product survey >/dev/null
work=$(mktemp -d)
db="$work/loadtest.sqlite"
.build/release/survey venue import --db "$db" venues/demo-hall/venue.json >/dev/null
.build/release/survey record --db "$db" --venue demo-hall venues/demo-hall/survey.jsonl >/dev/null

# Started here, stopped here, by PID. Logs at warning: per-request info lines would measure the terminal.
POSITIOND_LOG_LEVEL=warning .build/release/positiond --db "$db" --port "$PORT" --devices.max 100000 >"$work/positiond.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break
  sleep 0.1
done

run() {
  MODE=$1 WALK=venues/demo-hall/walk.jsonl VENUE=demo-hall \
    wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s scripts/loadtest.lua "http://127.0.0.1:$PORT" | grep '^RESULT'
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); positiond and wrk share them"
echo "wrk -t2 -c$CONNECTIONS -d${DURATION}s against http://127.0.0.1:$PORT (demo-hall: $(sqlite3 "$db" 'select count(*) from fingerprint' 2>/dev/null || echo 240) fingerprints)"
printf '%-8s %10s %10s %10s %8s\n' route req/s p50_ms p99_ms errors
results=()
for mode in trivial locate samples; do
  line=$(run "$mode")
  results+=("$line")
  set -- $line
  printf '%-8s %10s %10s %10s %8s\n' "$2" "$3" "$4" "$5" "$6"
done
trivial=$(echo "${results[0]}" | awk '{print $3}')
locate=$(echo "${results[1]}" | awk '{print $3}')
samples=$(echo "${results[2]}" | awk '{print $3}')
awk -v l="$locate" -v s="$samples" -v t="$trivial" 'BEGIN { printf "locate / trivial = %.2f, samples / trivial = %.2f\n", l / t, s / t }'
