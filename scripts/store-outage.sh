#!/usr/bin/env bash
# positiond on PostgreSQL while its database goes away and comes back (issue 26: a lost server mid-run).
# A throwaway PostgreSQL (scripts/with-postgres.sh), the demo venue loaded with `survey --db postgres://…`,
# one positiond, then:
# 1. before: a locate and a store read (visitor presence) answer 200;
# 2. the outage: the database refuses new connections and every session on it is terminated (what a
#    restarted or failed-over server does to its clients). Locating (from memory) must still answer 200;
#    the store read must answer 503 naming the request id, with no SQL, URL or server message in the body,
#    within the pool's 10 s lease limit and a margin; positiond must keep running;
# 3. the return: connections are allowed again, and the same store read must answer 200 again within 30 s,
#    without restarting positiond.
# Everything started here is stopped by PID and the folder removed on exit; exits non-zero when a check
# fails. Needs the binaries: BIN=/folder/with/positiond+survey, otherwise `make release`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

if [[ -z "${BF_OUTAGE_INSIDE:-}" ]]; then
    BF_OUTAGE_INSIDE=1 exec scripts/with-postgres.sh "$0" "$@"
fi
db=$BEACONFIX_TEST_POSTGRES
# The server's maintenance database: the one the outage leaves open, from which it is controlled.
control=${db%/*}/postgres
venue=demo-hall

work=$(mktemp -d "${TMPDIR:-/tmp}/store-outage.XXXXXX")
pid=""
cleanup() {
    bf_stop "$pid"
    rm -rf -- "$work"
}
trap cleanup EXIT

bf_apt curl
bf_binaries
failures=()
fail() { echo "FAIL: $*"; failures+=("$*"); }

echo "== loading venues/$venue into PostgreSQL with survey --db postgres://…"
bf_demo_db "$db" "$work/survey.log"
port=$(bf_free_port)
"$POSITIOND" --db "$db" --host 127.0.0.1 --port "$port" --log-level warning >"$work/positiond.log" 2>&1 &
pid=$!
bf_wait_ready "$port" 60 || { cat "$work/positiond.log"; echo "FAIL: positiond did not answer /readyz within 60 s"; exit 1; }

base=http://127.0.0.1:$port
locate() { curl -s -o "$work/locate.json" -w '%{http_code}' -X POST "$base/v1/venues/$venue/locate" \
    -H 'Content-Type: application/json' -d @venues/$venue/locate-request.json; }
presence() { curl -s -o "$work/presence.json" -w '%{http_code}' --max-time 30 "$base/v1/venues/$venue/analytics/presence?window=60"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

echo "== before the outage"
status=$(locate); [[ "$status" == 200 ]] || fail "locate before the outage answered $status: $(cat "$work/locate.json")"
status=$(presence); [[ "$status" == 200 ]] || fail "presence before the outage answered $status: $(cat "$work/presence.json")"
echo "locate 200, presence 200"

echo "== the outage: no new connections to the database, and every session on it terminated"
psql "$control" -qAtc "ALTER DATABASE beaconfix ALLOW_CONNECTIONS false" >/dev/null
psql "$control" -qAtc "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = 'beaconfix'" >/dev/null
status=$(locate)
[[ "$status" == 200 ]] && echo "locate during the outage: 200 (from memory)" || fail "locate during the outage answered $status"
start=$(now_ms)
status=$(presence)
elapsed=$(($(now_ms) - start))
body=$(cat "$work/presence.json")
echo "presence during the outage: $status after $elapsed ms: $body"
[[ "$status" == 503 ]] || fail "a store read during the outage answered $status, not 503"
((elapsed <= 15000)) || fail "a store read during the outage took $elapsed ms to fail (the lease limit is 10 s)"
[[ "$body" == *"request id"* ]] || fail "the 503 does not name the request id: $body"
for leak in "postgres://" "SELECT" "beaconfix@" "does not allow connections" "127.0.0.1"; do
    [[ "$body" != *"$leak"* ]] || fail "the 503 shows '$leak': $body"
done
bf_alive "$pid" || fail "positiond died during the outage"
# The cause is in positiond's log, under the request id.
grep -q "the store failed" "$work/positiond.log" || fail "positiond's log does not say why the store failed"

echo "== the return: connections allowed again"
psql "$control" -qAtc "ALTER DATABASE beaconfix ALLOW_CONNECTIONS true" >/dev/null
start=$(now_ms)
recovered=""
while (($(now_ms) - start < 30000)); do
    status=$(presence)
    if [[ "$status" == 200 ]]; then recovered=$(($(now_ms) - start)); break; fi
    sleep 0.2
done
if [[ -n "$recovered" ]]; then
    echo "presence answered 200 again $recovered ms after the database came back, same positiond (pid $pid)"
else
    fail "presence did not answer 200 within 30 s of the database coming back (last: $status $(cat "$work/presence.json"))"
fi
status=$(locate); [[ "$status" == 200 ]] || fail "locate after the outage answered $status"

if ((${#failures[@]} > 0)); then
    echo "store-outage: ${#failures[@]} check(s) failed"
    tail -n 20 "$work/positiond.log"
    exit 1
fi
echo "PASS: store outage (a store read failed with 503 after $elapsed ms and named its request id; locating went on; the store answered again $recovered ms after the database came back)"
