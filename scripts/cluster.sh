#!/usr/bin/env bash
# A positiond cluster on PostgreSQL, checked under load (issue 14): a throwaway PostgreSQL
# (scripts/with-postgres.sh), the demo venue loaded into it with `survey --db postgres://…`, 3 replicas, and
# Debian's nginx with deploy/nginx.conf in front (device-hashed tracked samples, retry on another replica).
#
#   scripts/cluster.sh [SECONDS]     wrk's duration per run, default 10
#
# 1. wrk -t2 -c64 straight to one replica, then through nginx: tracked samples of 2,000 devices and every
#    4th request a locate (scripts/cluster.lua), with a venue-wide live subscriber on every replica
#    (scripts/cluster-subscribers.py). Prints req/s, p50/p99, statuses and socket errors.
# 2. During the nginx run, `survey replace-beacon replace --db postgres://…`: every replica must serve the
#    new revision (its /readyz) within 2 s of the command's end (LISTEN/NOTIFY, no polling).
# 3. Through nginx again, one replica SIGKILLed halfway: wrk's non-2xx and socket errors, nginx's retries
#    (access log), how long until a device of the killed replica is answered again, and whether that
#    answer says `track: rewarmed`. Errors must stay at or under 0.1% of the requests.
# 4. Every subscriber must have seen positions of devices tracked on the other replicas (the relay through
#    PostgreSQL notifications); prints the relay's counters (batches, bytes, messages, drops) per replica.
# Everything started here is stopped by PID and the folder removed on exit (trap); exits non-zero when a
# check fails. Needs root (apt-get for postgresql, nginx, wrk, curl; PostgreSQL's server runs as postgres)
# and the binaries: BIN=/folder/with/positiond+survey, otherwise `make release`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/common.sh

# PostgreSQL first: with-postgres.sh runs this script again inside, with BEACONFIX_TEST_POSTGRES set, and
# stops the server by its PID when it ends.
if [[ -z "${BF_CLUSTER_INSIDE:-}" ]]; then
    BF_CLUSTER_INSIDE=1 exec scripts/with-postgres.sh "$0" "$@"
fi
db=$BEACONFIX_TEST_POSTGRES

seconds=${1:-10}
[[ "$seconds" =~ ^[0-9]+$ ]] && ((seconds >= 4)) || { echo "usage: $0 [SECONDS >= 4]" >&2; exit 2; }
venue=demo-hall
replicas=3
devices=2000
UUID=B9407F30-F5F8-466E-AFF9-25556B57FE6D

work=$(mktemp -d "${TMPDIR:-/tmp}/cluster.XXXXXX")
pids=() ports=() nginx_pid="" wrk_pid="" subscribers_pid=""
cleanup() {
    touch "$work/stop" 2>/dev/null || true
    bf_stop "$wrk_pid"
    bf_stop "$subscribers_pid"
    bf_stop "$nginx_pid"
    local p
    for p in "${pids[@]}"; do bf_stop "$p"; done
    rm -rf -- "$work"
}
trap cleanup EXIT

bf_apt nginx wrk curl python3
bf_binaries
bf_python websockets websockets "${TMPDIR:-/tmp}/beaconfix-cluster-venv"
failures=()
fail() { echo "FAIL: $*"; failures+=("$*"); }

echo "== loading venues/$venue into PostgreSQL with survey --db postgres://…"
bf_demo_db "$db" "$work/survey.log"

for i in $(seq 0 $((replicas - 1))); do
    port=$(bf_free_port)
    "$POSITIOND" --db "$db" --host 127.0.0.1 --port "$port" --log-level warning --devices-max 100000 \
        >"$work/replica-$i.log" 2>&1 &
    pids[i]=$!
    ports[i]=$port
done
for i in "${!ports[@]}"; do
    bf_wait_ready "${ports[i]}" 60 || { cat "$work/replica-$i.log"; echo "FAIL: replica $i did not answer /readyz on port ${ports[i]} within 60 s"; exit 1; }
done

# nginx: the template with the replica lines filled in, a prefix of its own under $work.
prefix="$work/nginx"
mkdir -p "$prefix/logs" "$prefix/temp"
chmod 755 "$work" "$prefix" "$prefix/temp" # the workers (www-data) create and use the temp folders
nginx_port=$(bf_free_port)
servers=""
for port in "${ports[@]}"; do
    servers+="        server 127.0.0.1:$port max_fails=1 fail_timeout=2s;\\n"
done
sed -e "s|^ *# REPLICAS\$|${servers%\\n}|" -e "s|@LISTEN@|127.0.0.1:$nginx_port|" deploy/nginx.conf >"$prefix/nginx.conf"
nginx -t -q -e "$prefix/logs/error.log" -c "$prefix/nginx.conf" -p "$prefix/" || { cat "$prefix/logs/error.log"; echo "FAIL: nginx -t"; exit 1; }
nginx -e "$prefix/logs/error.log" -c "$prefix/nginx.conf" -p "$prefix/" &
nginx_pid=$!
bf_wait_ready "$nginx_port" 10 || { cat "$prefix/logs/error.log"; echo "FAIL: nginx did not answer /readyz on port $nginx_port"; exit 1; }
nginx_url="http://127.0.0.1:$nginx_port"
echo "machine: $(nproc) cores, shared by PostgreSQL, wrk, nginx ($(nginx -v 2>&1 | cut -d/ -f2)) and the replicas"
echo "replicas: ${ports[*]} (pids ${pids[*]}) on $db; nginx (pid $nginx_pid) on 127.0.0.1:$nginx_port"

# Live subscribers: venue-wide, one straight to each replica, for the whole measurement.
urls=()
for port in "${ports[@]}"; do urls+=("http://127.0.0.1:$port"); done
"$BF_PY" scripts/cluster-subscribers.py "$venue" "$work/subscribers.ready" "$work/stop" "$work/subscribers.json" "${urls[@]}" \
    >"$work/subscribers.log" 2>&1 &
subscribers_pid=$!
for _ in $(seq 1 150); do [[ -f "$work/subscribers.ready" ]] && break; sleep 0.1; done
[[ -f "$work/subscribers.ready" ]] || { cat "$work/subscribers.log"; echo "FAIL: the live subscribers did not all subscribe"; exit 1; }

# A sample body of the walk with its time stamp set: sample_body [T]
template=$(head -n 1 venues/$venue/walk.jsonl | sed -E 's/,"(floor|x|y)":[-0-9.eE+]+//g; s/,"spot":"[^"]*"//; s/"t":[0-9.eE+]+/"t":%s/')
sample_body() { printf "{\"samples\": [$template]}" "${1:-$(date +%s.%N | cut -c1-14)}"; }
post() { # URL DEVICE: HTTP status; body in $work/post.json
    curl -s -o "$work/post.json" -w '%{http_code}' --max-time 2 -X POST -H 'Content-Type: application/json' \
        --data "$(sample_body)" "$1/v1/venues/$venue/devices/$2/samples" || true
}
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "?"))' "$1" "$2" 2>/dev/null || echo "?"; }
owner_of() { # DEVICE: the index of the replica that tracks it, or nothing
    local i
    for i in "${!ports[@]}"; do
        [[ -n "${pids[i]}" ]] || continue
        [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:${ports[i]}/v1/venues/$venue/devices/$1") == 200 ]] && { echo "$i"; return; }
    done
}
revision_of() { # PORT: the revision of the venue the replica serves
    curl -s --max-time 2 "http://127.0.0.1:$1/readyz" | python3 -c 'import json, sys; print(json.load(sys.stdin)["venues"].get(sys.argv[1], -1))' "$venue" 2>/dev/null || echo -1
}

ticks_per_second=$(getconf CLK_TCK)
cpu_ticks() { # PID...: user + system CPU ticks the processes used so far (0 for one that is gone)
    local p total=0 t
    for p in "$@"; do
        [[ "$p" =~ ^[0-9]+$ ]] || continue
        t=$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null) || t=0
        total=$((total + ${t:-0}))
    done
    echo "$total"
}
cpu_groups() { # prints "replicas postgres nginx" CPU ticks now
    local nginx_all
    nginx_all=$(pgrep -P "$nginx_pid" | tr '\n' ' ')
    echo "$(cpu_ticks "${pids[@]}") $(cpu_ticks $(pgrep -u postgres | tr '\n' ' ')) $(cpu_ticks "$nginx_pid" $nginx_all)"
}

run_wrk() { # URL OUTPUT [PREFIX]: wrk in the background (wrk_pid)
    WALK="$root/venues/$venue/walk.jsonl" VENUE=$venue DEVICES=$devices LOCATE_EVERY=4 PREFIX=${3:-cp} \
        wrk -t2 -c64 -d"${seconds}s" --timeout 5s -s scripts/cluster.lua "$1" >"$2" 2>&1 &
    wrk_pid=$!
}
report() { # LABEL OUTPUT VARIABLE: prints wrk's line; VARIABLE_rate and VARIABLE_errors, VARIABLE_requests
    local requests rate p50 p99 max s2 s4 s5 connect read write timeout
    read -r _ requests rate p50 p99 max s2 s4 s5 connect read write timeout < <(grep '^RESULT' "$2") ||
        { cat "$2"; echo "FAIL: wrk produced no result"; exit 1; }
    printf '%-24s %9s req/s  p50 %7s ms  p99 %7s ms  max %8s ms  2xx %s 4xx %s 5xx %s  socket errors: connect %s read %s write %s timeout %s\n' \
        "$1" "$rate" "$p50" "$p99" "$max" "$s2" "$s4" "$s5" "$connect" "$read" "$write" "$timeout"
    printf -v "$3_rate" '%s' "$rate"
    printf -v "$3_requests" '%s' "$requests"
    printf -v "$3_errors" '%s' "$((s4 + s5 + connect + read + write + timeout))"
}

# 1 and 2. Direct, then through nginx with a beacon replaced halfway.
echo "== wrk -t2 -c64 -d${seconds}s: tracked samples of $devices devices, every 4th request a locate"
# Devices of their own (direct-N): replica 0 tracks every one of them, which would blur who tracks cp-N.
run_wrk "http://127.0.0.1:${ports[0]}" "$work/direct.txt" direct; wait "$wrk_pid"; wrk_pid=""
report "direct to replica 0" "$work/direct.txt" direct
run_wrk "$nginx_url" "$work/nginx.txt"
read -r cpu_replicas0 cpu_postgres0 cpu_nginx0 < <(cpu_groups)
sleep "$((seconds / 2))"
before=$(revision_of "${ports[0]}")
after=$((before + 1))
"$SURVEY" replace-beacon replace --db "$db" --venue "$venue" --old "$UUID:1:3" --new "$UUID:3:1" --no-tune >"$work/replace.log" 2>&1 ||
    { cat "$work/replace.log"; fail "survey replace-beacon replace --db postgres://… failed"; }
replaced_ms=$(date +%s%3N)
# One watcher per replica, side by side, each a bare curl every 20 ms (no interpreter started per poll: on
# two loaded cores that alone took hundreds of milliseconds, and polling replicas in turn adds up).
watchers=()
for i in "${!ports[@]}"; do
    (
        while (($(date +%s%3N) - replaced_ms < 5000)); do
            served=$(curl -s --max-time 1 "http://127.0.0.1:${ports[i]}/readyz" | sed -n "s/.*\"$venue\":\([0-9]*\).*/\1/p")
            if [[ -n "$served" ]] && ((served >= after)); then echo $(($(date +%s%3N) - replaced_ms)) >"$work/seen.$i"; exit 0; fi
            sleep 0.02
        done
    ) &
    watchers+=($!)
done
wait "${watchers[@]}" || true
declare -A seen_ms=()
for i in "${!ports[@]}"; do [[ -s "$work/seen.$i" ]] && seen_ms[$i]=$(<"$work/seen.$i"); done
wait "$wrk_pid"; wrk_pid=""
read -r cpu_replicas1 cpu_postgres1 cpu_nginx1 < <(cpu_groups)
report "through nginx" "$work/nginx.txt" nginx
# Where the two cores went during that run (wrk and the subscribers aside): CPU milliseconds per request
# of each part, the capacity model's input (docs/operations.md, "Running a cluster").
awk -v r=$((cpu_replicas1 - cpu_replicas0)) -v p=$((cpu_postgres1 - cpu_postgres0)) -v n=$((cpu_nginx1 - cpu_nginx0)) \
    -v hz="$ticks_per_second" -v rate="$nginx_rate" -v s="$seconds" 'BEGIN {
    requests = rate * s
    printf "CPU during the nginx run, ms per request: replicas %.3f, PostgreSQL %.3f, nginx %.3f\n", \
        r * 1000 / hz / requests, p * 1000 / hz / requests, n * 1000 / hz / requests
    printf "one core of positiond serves %.0f req/s; PostgreSQL spends %.1f%% of what the replicas spend\n", \
        requests / (r / hz), 100 * p / r }'
awk -v d="$direct_rate" -v n="$nginx_rate" 'BEGIN { printf "through nginx / direct to one replica = %.2f\n", n / d }'
slowest=0
for i in "${!ports[@]}"; do
    echo "replica $i serves revision $after ${seen_ms[$i]:-(not within 5 s)} ms after survey replace-beacon returned"
    [[ -n "${seen_ms[$i]:-}" ]] || { fail "replica $i did not serve revision $after within 5 s"; continue; }
    ((seen_ms[$i] > slowest)) && slowest=${seen_ms[$i]}
done
((slowest <= 2000)) || fail "a replica took ${slowest} ms (> 2 s) to serve the new revision"

# 3. Through nginx, one replica killed halfway.
# The probe is a device of its own that wrk never sends: its first answer after the kill is then surely the
# first request of its new replica (a device of wrk's may have been re-warmed by wrk a moment before).
probe=probe-1
for _ in 1 2 3; do post "$nginx_url" "$probe" >/dev/null; sleep 0.1; done
victim=$(owner_of "$probe")
[[ -n "$victim" ]] || { fail "no replica tracks $probe"; victim=2; }
victim_pid=${pids[victim]}
echo "== through nginx again; after $((seconds / 2)) s replica $victim (port ${ports[victim]}, pid $victim_pid), which tracks $probe, gets SIGKILL"
run_wrk "$nginx_url" "$work/kill.txt"
sleep "$((seconds / 2))"
post "$nginx_url" "$probe" >/dev/null
kill_ms=$(date +%s%3N)
kill -KILL "$victim_pid"
wait "$victim_pid" 2>/dev/null || true
pids[victim]=""
tries=0 status=""
while :; do
    tries=$((tries + 1))
    status=$(post "$nginx_url" "$probe")
    [[ "$status" == 2* ]] && break
    (($(date +%s%3N) - kill_ms > 10000)) && break
    sleep 0.02
done
answered_ms=$(($(date +%s%3N) - kill_ms))
[[ "$status" == 2* ]] || fail "$probe unanswered 10 s after the kill (last status $status)"
track=$(field "$work/post.json" track)
window=$(field "$work/post.json" window_samples)
wait "$wrk_pid" || true; wrk_pid=""
report "through nginx, kill" "$work/kill.txt" kill
echo "$probe answered again ${answered_ms} ms after the SIGKILL (probe attempt $tries, status $status) by replica $(owner_of "$probe"): track $track, window_samples $window"
[[ "$track" == rewarmed ]] || fail "the first answer for $probe after its replica died says track '$track', not 'rewarmed'"
sleep 1.5 # nginx's access log is flushed every second
read -r after_kill retried non2xx < <(awk -v k="$kill_ms" '
    { t = $1 * 1000 }
    t >= k { after++; if ($2 !~ /^2/ && $2 != 499) bad++; if ($0 ~ /up=[^ ]*, /) retried++ }
    END { printf "%d %d %d\n", after, retried, bad }' "$prefix/logs/access.log")
echo "nginx after the kill: $after_kill requests, $retried retried on another replica, $non2xx non-2xx answered (499 = wrk closing at the end)"
share=$(awk -v e="$kill_errors" -v n="$kill_requests" 'BEGIN { printf "%.4f", n ? 100 * e / n : 100 }')
echo "errors seen by wrk during the kill run: $kill_errors of $kill_requests requests ($share%)"
awk -v s="$share" 'BEGIN { exit !(s <= 0.1) }' || fail "errors during the kill run: $share% > 0.1%"

# 4. Every subscriber saw devices tracked on the other replicas.
touch "$work/stop"
wait "$subscribers_pid" || true; subscribers_pid=""
declare -A owner=()
sample_devices=(cp-2 cp-3 cp-5 cp-7 cp-11 cp-13 cp-17 cp-19 cp-23 cp-29 cp-31 cp-37 cp-41 cp-43 cp-47 cp-53)
for d in "${sample_devices[@]}"; do owner[$d]=$(owner_of "$d"); done
# Owners after the kill: the dead replica's devices moved. What a subscriber of replica i must have seen is
# a device that replica i never tracked: one owned now by another live replica.
for i in "${!urls[@]}"; do
    line=$(grep -F "\"replica\": \"${urls[i]}\"" "$work/subscribers.json" || true)
    [[ -n "$line" ]] || { fail "no report of the subscriber of replica $i"; continue; }
    others=()
    for d in "${sample_devices[@]}"; do [[ -n "${owner[$d]}" && "${owner[$d]}" != "$i" ]] && others+=("$d"); done
    python3 - "$line" "$i" "$victim" "${others[@]}" <<'PY' || failures+=("subscriber $i")
import json, sys
entry, index, victim, others = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
seen = set(entry.get("devices", []))
remote = [d for d in others if d in seen]
print(f"subscriber of replica {index}: {entry['messages']} over {entry['seconds']} s, {len(seen)} devices, "
      f"{entry['out_of_order']} positions out of order; devices of other replicas seen: {len(remote)} of {len(others)}"
      + (f"; ended: {entry['error']}" if entry.get("error") else ""))
if not remote:
    print(f"FAIL: the subscriber of replica {index} saw no device tracked on another replica")
    sys.exit(1)
if entry.get("error") and index != victim:
    print(f"FAIL: the subscriber of live replica {index} failed")
    sys.exit(1)
PY
done
for i in "${!ports[@]}"; do
    [[ -n "${pids[i]}" ]] || continue
    curl -s --max-time 2 "http://127.0.0.1:${ports[i]}/metrics" |
        awk -v i="$i" '/^beaconfix_live_relay_|^beaconfix_live_dropped/ { sub(/beaconfix_live_/, ""); m = m " " $1 "=" $2 } END { print "relay of replica " i ":" m }'
done

for i in "${!pids[@]}"; do
    [[ -z "${pids[i]}" ]] || bf_alive "${pids[i]}" || { echo "replica $i died:"; tail -n 20 "$work/replica-$i.log"; fail "replica $i died"; }
done
bf_alive "$nginx_pid" || fail "nginx died"
if ((${#failures[@]} == 0)); then
    echo "PASS: cluster (direct ${direct_rate} req/s, through nginx ${nginx_rate} req/s, failover ${answered_ms} ms, revision on every replica within ${slowest} ms)"
else
    echo "FAIL: cluster: ${failures[*]}"
    exit 1
fi
