#!/usr/bin/env bash
# Prototype of issue 14's replica routing: 3 positiond replicas on one SQLite file (each opens it
# read-only), behind Debian's nginx with deploy/nginx.conf (device-hashed tracked samples, retry on another
# replica). No PostgreSQL yet: each replica keeps its devices' state in its own memory.
#
#   scripts/cluster-proto.sh [SECONDS]     wrk's duration per run, default 10
#
# 1. Routing: tracked samples for 50 devices (3 posts each) through nginx, then GET
#    /v1/venues/demo-hall/devices/{id} directly on every replica: each device must be tracked by exactly
#    one replica (FAIL otherwise); prints how the devices spread.
# 2. wrk -t2 -c64 for SECONDS straight to one replica, then through nginx (tracked samples, one sample a
#    request, 3,000 devices, scripts/cluster-proto.lua): req/s, p50/p99, statuses, socket errors.
# 3. The same through nginx again, and after SECONDS/2 one replica is killed with SIGKILL: wrk's non-2xx
#    and socket errors over the run, nginx's retried requests and the non-2xx it answered after the kill
#    (from its access log), and how long until a device of the killed replica is answered again (a poller
#    posts a sample for it through nginx every 20 ms from the kill on), with the `window_samples` of that
#    answer (the track restarts: the new replica never saw the device).
#
# Needs root (apt-get for nginx, wrk, curl; nginx's master), and the binaries: BIN=/folder/with/positiond+survey
# (otherwise `make release`). Everything runs on 127.0.0.1; every process started here is stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/common.sh

seconds=${1:-10}
[[ "$seconds" =~ ^[0-9]+$ ]] && ((seconds >= 4)) || { echo "usage: $0 [SECONDS >= 4]" >&2; exit 2; }
venue=demo-hall
replicas=3
devices=3000

work=$(mktemp -d "${TMPDIR:-/tmp}/cluster-proto.XXXXXX")
pids=() ports=() nginx_pid="" wrk_pid=""
stop() { # PID: stop one process started here, and reap it
    [[ -n "$1" ]] || return 0
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
cleanup() {
    stop "$wrk_pid"
    stop "$nginx_pid"
    local p
    for p in "${pids[@]}"; do stop "$p"; done
    rm -rf -- "$work"
}
trap cleanup EXIT

bf_apt nginx wrk curl python3
bf_binaries
db="$work/cluster.sqlite"
bf_demo_db "$db" "$work/survey.log"

# The replicas: same file, own ports. Started here, stopped by PID in the trap.
for i in $(seq 0 $((replicas - 1))); do
    port=$(bf_free_port)
    "$POSITIOND" --db "$db" --host 127.0.0.1 --port "$port" --log-level warning --devices-max 100000 \
        >"$work/replica-$i.log" 2>&1 &
    pids[i]=$!
    ports[i]=$port
done
for i in "${!ports[@]}"; do
    bf_wait_ready "${ports[i]}" 30 || { cat "$work/replica-$i.log"; echo "FAIL: replica $i did not answer /readyz on port ${ports[i]} within 30 s"; exit 1; }
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
echo "machine: $(nproc) cores, shared by wrk, nginx ($(nginx -v 2>&1 | cut -d/ -f2)) and the replicas"
echo "replicas: ${ports[*]} (pids ${pids[*]}) on one database; nginx (pid $nginx_pid) on 127.0.0.1:$nginx_port"

# A sample body of the walk with its time stamp set: sample_body [T]
template=$(head -n 1 venues/demo-hall/walk.jsonl | sed -E 's/,"(floor|x|y)":[-0-9.eE+]+//g; s/,"spot":"[^"]*"//; s/"t":[0-9.eE+]+/"t":%s/')
sample_body() { printf "{\"samples\": [$template]}" "${1:-$(date +%s.%N | cut -c1-14)}"; }
post() { # URL DEVICE [T]: HTTP status; body in $work/post.json
    curl -s -o "$work/post.json" -w '%{http_code}' --max-time 2 -X POST -H 'Content-Type: application/json' \
        --data "$(sample_body "${3:-}")" "$1/v1/venues/$venue/devices/$2/samples" || true
}
window_samples() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("window_samples", "?"))' "$1" 2>/dev/null || echo "?"; }
nginx_url="http://127.0.0.1:$nginx_port"

# 1. Routing: each device on exactly one replica.
echo "== routing: 50 devices, 3 tracked posts each, through nginx; then GET each device on every replica"
declare -A owner=()
now=$(date +%s)
for round in 0 1 2; do
    for d in $(seq 1 50); do
        status=$(post "$nginx_url" "route-$d" "$((now - 2 + round))")
        [[ "$status" == 2* ]] || { cat "$work/post.json"; echo "FAIL: POST samples of route-$d through nginx: $status"; exit 1; }
    done
done
last_window=$(window_samples "$work/post.json")
bad=0
spread=()
for i in "${!ports[@]}"; do spread[i]=0; done
for d in $(seq 1 50); do
    holders=()
    for i in "${!ports[@]}"; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:${ports[i]}/v1/venues/$venue/devices/route-$d")
        [[ "$code" == 200 ]] && holders+=("$i")
    done
    if ((${#holders[@]} == 1)); then
        owner[route-$d]=${holders[0]}
        spread[holders[0]]=$((spread[holders[0]] + 1))
    else
        echo "route-$d is tracked by ${#holders[@]} replicas (${holders[*]:-none})"
        bad=$((bad + 1))
    fi
done
echo "devices per replica: ${spread[*]}; window_samples of route-50's third post: $last_window (3 = all three posts reached one track)"
((bad == 0)) || { echo "FAIL: $bad of 50 devices are not tracked by exactly one replica"; exit 1; }
echo "routing: each of the 50 devices is tracked by exactly one replica"

run_wrk() { # URL OUTPUT: wrk in the background (wrk_pid)
    WALK="$root/venues/demo-hall/walk.jsonl" VENUE=$venue DEVICES=$devices \
        wrk -t2 -c64 -d"${seconds}s" --timeout 5s -s scripts/cluster-proto.lua "$1" >"$2" 2>&1 &
    wrk_pid=$!
}
report() { # LABEL OUTPUT
    local requests rate p50 p99 max s2 s4 s5 connect read write timeout
    read -r _ requests rate p50 p99 max s2 s4 s5 connect read write timeout < <(grep '^RESULT' "$2") ||
        { cat "$2"; echo "FAIL: wrk produced no result"; exit 1; }
    printf '%-22s %9s req/s  p50 %7s ms  p99 %7s ms  max %8s ms  2xx %s 4xx %s 5xx %s  socket errors: connect %s read %s write %s timeout %s\n' \
        "$1" "$rate" "$p50" "$p99" "$max" "$s2" "$s4" "$s5" "$connect" "$read" "$write" "$timeout"
    eval "${3:-_}=\$rate"
}

# 2. Direct vs through nginx.
echo "== wrk -t2 -c64 -d${seconds}s, tracked samples of $devices devices, one sample a request"
run_wrk "http://127.0.0.1:${ports[0]}" "$work/direct.txt"; wait "$wrk_pid"; wrk_pid=""
report "direct to replica 0" "$work/direct.txt" direct_rate
run_wrk "$nginx_url" "$work/nginx.txt"; wait "$wrk_pid"; wrk_pid=""
report "through nginx" "$work/nginx.txt" nginx_rate
awk -v d="$direct_rate" -v n="$nginx_rate" 'BEGIN { printf "through nginx / direct to one replica = %.2f\n", n / d }'

# 3. Through nginx, one replica killed mid-run.
victim=${owner[route-1]}
probe=route-1
victim_pid=${pids[victim]}
before=$(curl -s --max-time 2 "http://127.0.0.1:${ports[victim]}/v1/venues/$venue/devices/$probe" | python3 -c 'import json, sys; print(json.load(sys.stdin)["window_samples"])')
echo "== through nginx again; after $((seconds / 2)) s replica $victim (port ${ports[victim]}, pid $victim_pid) gets SIGKILL"
echo "probe device: $probe, tracked by replica $victim (window_samples $before)"
run_wrk "$nginx_url" "$work/kill.txt"
sleep "$((seconds / 2))"
kill_ms=$(date +%s%3N)
kill -KILL "$victim_pid"
wait "$victim_pid" 2>/dev/null || true
pids[victim]=""
# The probe: a sample for the killed replica's device every 20 ms until nginx answers 2xx.
tries=0 status=""
while :; do
    tries=$((tries + 1))
    status=$(post "$nginx_url" "$probe")
    [[ "$status" == 2* ]] && break
    (($(date +%s%3N) - kill_ms > 10000)) && { echo "FAIL: $probe unanswered 10 s after the kill (last status $status)"; exit 1; }
    sleep 0.02
done
answered_ms=$(($(date +%s%3N) - kill_ms))
after=$(window_samples "$work/post.json")
events=$(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])).get("events")))' "$work/post.json" 2>/dev/null || echo "?")
new_owner=""
for i in "${!ports[@]}"; do
    [[ -n "${pids[i]}" ]] || continue
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:${ports[i]}/v1/venues/$venue/devices/$probe")
    [[ "$code" == 200 ]] && new_owner+="$i "
done
wait "$wrk_pid" || true; wrk_pid=""
report "through nginx, kill" "$work/kill.txt" kill_rate
echo "$probe answered again ${answered_ms} ms after the SIGKILL (probe attempt $tries, status $status), now by replica ${new_owner:-?}; window_samples $before before, $after after (a fresh track); its events: $events"
sleep 1.5 # nginx's access log is flushed every second
awk -v k="$kill_ms" -v port=":${ports[victim]}" '
    { t = $1 * 1000 }
    t >= k { after++; if ($2 !~ /^2/) bad[$2]++; if ($0 ~ /up=[^ ]*, /) retried++;
             if ($0 ~ ("up=[^ ]*" port)) victim_tries++
             if (t < k + 2000) first2++ }
    END {
        printf "nginx after the kill: %d requests, %d retried on another replica, %d attempts sent to the dead replica;", after, retried, victim_tries
        n = 0; for (s in bad) { printf " status %s: %d", s, bad[s]; n++ }
        if (n == 0) printf " no non-2xx answered"
        printf "\n"
    }' "$prefix/logs/access.log"
status=0
for i in "${!pids[@]}"; do
    [[ -z "${pids[i]}" ]] || bf_alive "${pids[i]}" || { echo "replica $i died:"; tail -n 20 "$work/replica-$i.log"; status=1; }
done
bf_alive "$nginx_pid" || { echo "nginx died:"; tail -n 20 "$prefix/logs/error.log"; status=1; }
echo "nginx's error log, by kind:"
grep -E '\[(warn|error|crit|alert|emerg)\]' "$prefix/logs/error.log" | sed -E 's/^[0-9\/: ]+//; s/[0-9]+#[0-9]+: (\*[0-9]+ )?//; s/, (client|server|request|host|upstream):.*//' |
    sort | uniq -c | sort -rn | head -n 8 || true
((status == 0)) && echo "PASS: cluster-proto" || echo "FAIL: cluster-proto"
exit "$status"
