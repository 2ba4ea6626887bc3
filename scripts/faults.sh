#!/usr/bin/env bash
# Fault injection against survey and positiond, on copies of a demo-hall database in a temporary folder.
# Each scenario prints what it did and PASS or FAIL; the script fails if any scenario fails.
#
#   scripts/faults.sh [SCENARIO...]     all by default: record-kill replace-kill sigterm readonly diskfull locked
#
#   record-kill   kill -9 of `survey record` while it writes a big survey (the demo survey 150 times, killed
#                 once the WAL holds 2 MiB of the transaction): the database is unchanged (normalised dump),
#                 integrity_check says ok, and the next `survey record` succeeds.
#   replace-kill  kill -9 of `survey replace-beacon replace`, once as soon as it writes (the replacement transaction)
#                 and once during the re-tuning that follows: the database is either unchanged or holds the
#                 whole replacement (the same dump as a replacement run to completion, time stamps aside),
#                 with the tuning left at the old revision (`survey tune --show` says to re-tune); integrity
#                 ok; the next `survey replace-beacon replace` succeeds.
#   sigterm       SIGTERM to positiond under wrk load, with 3 slow uploads in flight and a live WebSocket
#                 open: every in-flight request gets its response, the WebSocket is closed cleanly, and
#                 positiond exits 0 within GRACE seconds (default 10).
#   readonly      the database on a read-only filesystem (a loop-mounted ext4 image mounted ro: root ignores
#                 file modes): `survey record` fails with a message and an exit status of 1 to 127, the file
#                 is unchanged; positiond either serves it or refuses with a message and a status of 1 to 127
#                 within 15 s (no crash, no hang).
#   diskfull      `survey record` of a 20 MB survey on a 4 MiB filesystem: a message, an exit status of 1 to
#                 127, the database unchanged and intact.
#   locked        positiond started while another process (python3's sqlite3) holds a write transaction
#                 (BEGIN IMMEDIATE) on the database: /readyz answers 200 and a locate succeeds within 5 s,
#                 while the lock is still held; then the lock is released.
#
# Needs: root (mount), the binaries (`make release`, or BIN=/folder/with/positiond+survey to skip the
# build); wrk, curl, sqlite3, python3, e2fsprogs from Debian and websockets from PyPI, installed when
# missing. Loop mounts are unmounted and every process started here is stopped by its PID on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
all=(record-kill replace-kill sigterm readonly diskfull locked)
scenarios=("$@")
((${#scenarios[@]})) || scenarios=("${all[@]}")
for scenario in "${scenarios[@]}"; do [[ " ${all[*]} " == *" $scenario "* ]] || usage; done
GRACE=${GRACE:-10}
UUID=B9407F30-F5F8-466E-AFF9-25556B57FE6D

work=$(mktemp -d "${TMPDIR:-/tmp}/faults.XXXXXX")
pids=()   # processes started here, stopped on exit
mounts=() # loop mounts, unmounted on exit
cleanup() {
    local p m
    for p in "${pids[@]}"; do
        bf_alive "$p" && kill "$p" 2>/dev/null || true
        bf_alive "$p" && sleep 1 && bf_alive "$p" && kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
    rm -rf -- "$work"
}
trap cleanup EXIT

bf_apt wrk curl sqlite3 python3 e2fsprogs
bf_python websockets websockets "$work/venv"
PY=$BF_PY
bf_binaries

results=()
verdict() { # SCENARIO PASS|FAIL WHY
    results+=("$2 $1: $3")
    echo "$2: $1: $3"
    echo
}
# A hash of the database's content: equal means the same venues, survey and history, whatever the pages
# and the WAL look like. The times its rows were written at (which differ between two runs of the same
# change) are set to 0 in a copy first: the date columns of migration v13 (seconds since the Unix epoch;
# a NULL one stays NULL).
content() {
    local copy="$work/content-copy.sqlite"
    rm -f "$copy"
    sqlite3 "$1" ".backup '$copy'"
    sqlite3 "$copy" "UPDATE venue SET createdAt = 0, updatedAt = 0; UPDATE surveySession SET recordedAt = 0;
        UPDATE apiKey SET createdAt = 0, revokedAt = revokedAt * 0;
        UPDATE beaconReplacement SET performedAt = 0, undoneAt = undoneAt * 0;
        UPDATE venueTuning SET tunedAt = 0; UPDATE floorPlan SET updatedAt = 0;"
    sqlite3 "$copy" .dump | sha256sum | cut -d' ' -f1
    rm -f "$copy"
}
counts() {
    sqlite3 "$1" "SELECT 'revision ' || (SELECT revision FROM venue WHERE id = 'demo-hall') || ', fingerprints ' ||
        (SELECT count(*) FROM fingerprint) || ', entries ' || (SELECT count(*) FROM fingerprintEntry) ||
        ', sessions ' || (SELECT count(*) FROM surveySession) || ', replacements ' || (SELECT count(*) FROM beaconReplacement)"
}
integrity() { { sqlite3 "$1" 'PRAGMA integrity_check' 2>&1 || true; } | tr '\n' ' ' | sed 's/ $//'; }
# Runs COMMAND... in the background (last_pid), remembered for the trap.
start() { "$@" & last_pid=$!; pids+=("$last_pid"); }
# Waits for PID (a child of this shell, so never inside $(...)); its exit status in `reaped`.
# Reaped PIDs leave `pids`: the trap must never signal a PID the system may have given to another process.
reap() {
    local p kept=()
    reaped=0
    wait "$1" 2>/dev/null || reaped=$?
    for p in "${pids[@]}"; do [[ "$p" == "$1" ]] || kept+=("$p"); done
    pids=("${kept[@]}")
}
describe_status() { # STATUS
    if (($1 >= 128)); then echo "$1 (killed by signal $(($1 - 128)): $(kill -l $(($1 - 128)) 2>/dev/null || echo '?'))"; else echo "$1"; fi
}
start_positiond() { # DB LOG: positiond on a free port (port, positiond_pid)
    port=$(bf_free_port)
    start "$POSITIOND" --db "$1" --host 127.0.0.1 --port "$port" --log-level warning >"$2" 2>&1
    positiond_pid=$last_pid
}
# A loop-mounted ext4 image of SIZE MiB at DIR (made here).
loop_fs() { # SIZE DIR
    dd if=/dev/zero of="$work/$(basename "$2").img" bs=1M count="$1" status=none
    mkfs.ext4 -q -F "$work/$(basename "$2").img"
    mkdir -p "$2"
    mount -o loop "$work/$(basename "$2").img" "$2"
    mounts+=("$2")
}

echo "preparing: demo-hall imported, recorded and tuned into $work/base.sqlite"
base="$work/base.sqlite"
bf_demo_db "$base" "$work/base.log"
sqlite3 "$base" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
base_content=$(content "$base")
big="$work/big.jsonl" # the demo survey 150 times
for _ in $(seq 1 150); do cat venues/demo-hall/survey.jsonl; done >"$big"
echo "base: $(counts "$base")"
echo

scenario_record_kill() {
    echo "== record-kill: kill -9 of survey record mid-write"
    local db="$work/record-kill.sqlite" p status wal=0 i
    cp "$base" "$db"
    echo "survey record --no-tune of $(wc -l <"$big") lines ($(($(stat -c %s "$big") >> 20)) MiB); killed once $db-wal holds 2 MiB"
    start "$SURVEY" record --db "$db" --venue demo-hall "$big" --no-tune >"$work/record-kill.out" 2>&1
    p=$last_pid
    for ((i = 0; i < 6000; i++)); do
        wal=$(stat -c %s "$db-wal" 2>/dev/null || echo 0)
        ((wal > 2 << 20)) && break
        bf_alive "$p" || break
        sleep 0.01
    done
    kill -9 "$p" 2>/dev/null || true
    reap "$p"; status=$reaped
    echo "killed: exit status $(describe_status "$status"), WAL at the kill: $wal bytes; output: $(tr '\r\n' '  ' <"$work/record-kill.out" | cut -c1-200)"
    local check
    check=$(integrity "$db")
    echo "integrity_check: $check; after: $(counts "$db")"
    if ((status != 137)); then
        verdict record-kill FAIL "survey record was not killed mid-write (exit status $status): the kill came too late"
        return
    fi
    if [[ "$check" != ok ]]; then verdict record-kill FAIL "integrity_check: $check"; return; fi
    if [[ "$(content "$db")" != "$base_content" ]]; then
        verdict record-kill FAIL "the database changed: $(counts "$db") (before: $(counts "$base"))"
        return
    fi
    echo "next: survey record --no-tune of venues/demo-hall/survey.jsonl"
    status=0
    "$SURVEY" record --db "$db" --venue demo-hall venues/demo-hall/survey.jsonl --no-tune >"$work/record-next.out" 2>&1 || status=$?
    echo "exit status $status: $(head -n 1 "$work/record-next.out"); after: $(counts "$db"); integrity_check: $(integrity "$db")"
    if ((status != 0)) || [[ "$(integrity "$db")" != ok ]]; then
        verdict record-kill FAIL "the next survey record failed (exit $status): $(tail -n 3 "$work/record-next.out")"
        return
    fi
    verdict record-kill PASS "killed mid-write (137), database unchanged, integrity ok, the next record succeeded"
}

scenario_replace_kill() {
    echo "== replace-kill: kill -9 of survey replace-beacon replace --old $UUID:1:3 --new $UUID:3:1"
    local failures=() when
    # The demo survey's replacement is one short transaction, written at its commit; on a survey 150 times
    # as big, the transaction fills the WAL for a few hundred ms before it commits, and the kill at 1 MiB
    # of WAL lands inside it. The kill during tuning uses the demo database itself (tuning takes seconds).
    local big_base="$work/replace-big.sqlite"
    cp "$base" "$big_base"
    "$SURVEY" record --db "$big_base" --venue demo-hall "$big" --no-tune >"$work/replace-big.log" 2>&1
    for when in write tuning; do
        local origin="$base" db="$work/replace-$when.sqlite" reference="$work/replace-$when-reference.sqlite"
        [[ $when == write ]] && origin="$big_base"
        local before after applied p status i state tuned check next=0
        before=$(content "$origin")
        cp "$origin" "$reference"
        "$SURVEY" replace-beacon replace --db "$reference" --venue demo-hall --old "$UUID:1:3" --new "$UUID:3:1" --no-tune >/dev/null
        applied=$(content "$reference")
        cp "$origin" "$db"
        echo "on $([[ $when == write ]] && echo "the demo database with the demo survey recorded 150 times more" || echo "the demo database") ($(counts "$db")); reference (the replacement run to completion, --no-tune): $(counts "$reference")"
        start "$SURVEY" replace-beacon replace --db "$db" --venue demo-hall --old "$UUID:1:3" --new "$UUID:3:1" >"$work/replace-$when.out" 2>&1
        p=$last_pid
        for ((i = 0; i < 6000; i++)); do
            if [[ $when == write ]]; then
                (($(stat -c %s "$db-wal" 2>/dev/null || echo 0) > 1 << 20)) && break
            else
                grep -q 'tuning:' "$work/replace-$when.out" 2>/dev/null && break
            fi
            bf_alive "$p" || break
            sleep 0.005
        done
        kill -9 "$p" 2>/dev/null || true
        reap "$p"; status=$reaped
        check=$(integrity "$db")
        after=$(content "$db")
        if [[ "$after" == "$before" ]]; then
            state="the database unchanged"
        elif [[ "$after" == "$applied" ]]; then
            state="the whole replacement"
        else
            state="NEITHER the database unchanged NOR the whole replacement"
        fi
        tuned=$("$SURVEY" tune --db "$db" --venue demo-hall --show 2>&1 | grep -E 'tuned at|changed since|never' | cut -d: -f1-3 | tr '\n' ' ' || true)
        echo "kill at $([[ $when == write ]] && echo '1 MiB of WAL' || echo "the first 'tuning:' progress line"): exit status $(describe_status "$status"); holds $state: $(counts "$db"); integrity_check: $check"
        echo "  tuning: $tuned"
        "$SURVEY" replace-beacon replace --db "$db" --venue demo-hall --old "$UUID:1:4" --new "$UUID:3:2" --no-tune >"$work/replace-next.out" 2>&1 || next=$?
        echo "  next: survey replace-beacon replace --old ...:1:4 --new ...:3:2 --no-tune: exit status $next: $(head -n 1 "$work/replace-next.out" | cut -c1-160)"
        ((status == 137)) || failures+=("at $when: not killed (exit status $status)")
        [[ "$check" == ok ]] || failures+=("at $when: integrity_check $check")
        [[ "$state" != NEITHER* ]] || failures+=("at $when: $state")
        ((next == 0)) || failures+=("at $when: the next replace-beacon failed: $(tail -n 2 "$work/replace-next.out" | tr '\n' ' ')")
    done
    if ((${#failures[@]})); then
        verdict replace-kill FAIL "$(printf '%s; ' "${failures[@]}")"
    else
        verdict replace-kill PASS "both kills left a consistent database (see above), integrity ok, the next replace-beacon succeeded"
    fi
}

scenario_sigterm() {
    echo "== sigterm: SIGTERM to positiond under load"
    local db="$work/sigterm.sqlite" wrk_pid ws_pid curls=() i t0 t1 status elapsed failures=()
    cp "$base" "$db"
    # A body of 60 walk samples (about 50 kB), sent at 10 kB/s: each upload is in flight for about 5 s.
    python3 -c '
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()][:60]
print(json.dumps({"samples": [{key: line[key] for key in ("beacons", "device", "t")} for line in lines]}))' \
        venues/demo-hall/walk.jsonl >"$work/slow-body.json"
    start_positiond "$db" "$work/sigterm.log"
    bf_wait_ready "$port" 30 || { verdict sigterm FAIL "positiond did not start: $(tail -n 3 "$work/sigterm.log")"; return; }
    start env WALK=venues/demo-hall/walk.jsonl VENUE=demo-hall THREADS=2 wrk -t2 -c16 -d12s -s scripts/soak.lua "http://127.0.0.1:$port" >"$work/sigterm.wrk" 2>&1
    wrk_pid=$last_pid
    cat >"$work/ws-client.py" <<'EOF'
import asyncio, sys, time
import websockets
async def main():
    async with websockets.connect(sys.argv[1]) as socket:
        print("opened:", await socket.recv(), flush=True)
        messages = 0
        try:
            while True:
                await socket.recv()
                messages += 1
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            print(f"closed: code {code} after {messages} messages ({type(closed).__name__})", flush=True)
asyncio.run(main())
EOF
    start "$PY" "$work/ws-client.py" "ws://127.0.0.1:$port/v1/venues/demo-hall/live?device=soak-0" >"$work/sigterm.ws" 2>&1
    ws_pid=$last_pid
    sleep 2
    for i in 1 2 3; do
        start curl -s -o "$work/slow-$i.body" -w '%{http_code} %{time_total}' --max-time 30 --limit-rate 10K \
            -X POST -H 'Content-Type: application/json' --data-binary @"$work/slow-body.json" \
            "http://127.0.0.1:$port/v1/venues/demo-hall/locate" >"$work/slow-$i.out" 2>&1
        curls+=("$last_pid")
    done
    sleep 2
    echo "load: wrk -t2 -c16 (locate + tracked samples), 3 uploads of $(stat -c %s "$work/slow-body.json") bytes at 10 kB/s in flight for 2 s, 1 live WebSocket"
    t0=$(date +%s%N)
    kill -TERM "$positiond_pid"
    sleep 0.5
    local late
    late=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/healthz" || true)
    status=""
    for ((i = 0; i < GRACE * 20 + 200; i++)); do
        bf_alive "$positiond_pid" || break
        sleep 0.05
    done
    t1=$(date +%s%N)
    if bf_alive "$positiond_pid"; then
        failures+=("positiond still running $(((t1 - t0) / 1000000)) ms after SIGTERM")
        kill -9 "$positiond_pid" 2>/dev/null || true
    fi
    reap "$positiond_pid"; status=$reaped
    elapsed=$(((t1 - t0) / 1000000))
    echo "SIGTERM sent; positiond exited with status $(describe_status "$status") after $elapsed ms (grace $GRACE s); a new request 0.5 s after SIGTERM got HTTP ${late:-none} (000: refused)"
    for i in 1 2 3; do
        wait "${curls[$((i - 1))]}" 2>/dev/null || true
        echo "in-flight upload $i: HTTP $(cat "$work/slow-$i.out") s: $(head -c 80 "$work/slow-$i.body")"
        [[ "$(cut -d' ' -f1 "$work/slow-$i.out")" =~ ^(200|422)$ ]] || failures+=("in-flight upload $i got no response (HTTP $(cat "$work/slow-$i.out"))")
    done
    wait "$wrk_pid" 2>/dev/null || true
    wait "$ws_pid" 2>/dev/null || true
    echo "wrk: $(grep -E 'requests in|Socket errors' "$work/sigterm.wrk" | xargs) (errors after the listener closed are expected)"
    echo "live WebSocket: $(tr '\n' ' ' <"$work/sigterm.ws" | cut -c1-200)"
    grep -qE 'closed: code (1000|1001)' "$work/sigterm.ws" || failures+=("the live WebSocket was not closed cleanly: $(tail -n 1 "$work/sigterm.ws")")
    ((status == 0)) || failures+=("exit status $(describe_status "$status")")
    ((elapsed <= GRACE * 1000)) || failures+=("took $elapsed ms to exit (grace $GRACE s)")
    if ((${#failures[@]})); then
        verdict sigterm FAIL "$(printf '%s; ' "${failures[@]}")"
    else
        verdict sigterm PASS "exit 0 after $elapsed ms, the 3 in-flight uploads answered, the WebSocket closed cleanly"
    fi
}

scenario_readonly() {
    echo "== readonly: the database on a read-only filesystem"
    local dir="$work/ro" status=0 failures=() i
    loop_fs 16 "$dir"
    cp "$base" "$dir/db.sqlite"
    umount "$dir"
    mount -o loop,ro "$work/ro.img" "$dir"
    echo "mounted $work/ro.img read-only at $dir (root ignores file modes, not a read-only mount)"
    "$SURVEY" record --db "$dir/db.sqlite" --venue demo-hall venues/demo-hall/survey.jsonl --no-tune >"$work/ro.out" 2>"$work/ro.err" || status=$?
    echo "survey record: exit status $(describe_status "$status"); stderr: $(head -c 300 "$work/ro.err")"
    ((status >= 1 && status < 128)) || failures+=("survey record: exit status $(describe_status "$status")")
    [[ -s "$work/ro.err" ]] || failures+=("survey record printed no error message")
    cmp -s "$base" "$dir/db.sqlite" || failures+=("the database file changed")
    # positiond on it: serving read-only is fine, so is a clear refusal; a crash or a hang is not.
    start_positiond "$dir/db.sqlite" "$work/ro-positiond.log"
    local outcome="" t0=$SECONDS
    while ((SECONDS - t0 < 15)); do
        if curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$port/readyz"; then outcome=serving; break; fi
        bf_alive "$positiond_pid" || { outcome=exited; break; }
        sleep 0.1
    done
    if [[ $outcome == serving ]]; then
        kill -TERM "$positiond_pid"
        reap "$positiond_pid"; status=$reaped
        echo "positiond: serves /readyz (read-only); stopped with status $status"
    elif [[ $outcome == exited ]]; then
        reap "$positiond_pid"; status=$reaped
        echo "positiond: exited after $((SECONDS - t0)) s with status $(describe_status "$status"): $(grep -v '^$' "$work/ro-positiond.log" | head -n 2 | cut -c1-250 | tr '\n' ' ')"
        ((status >= 1 && status < 128)) || failures+=("positiond crashed on a read-only database: exit status $(describe_status "$status")")
    else
        kill -9 "$positiond_pid" 2>/dev/null || true
        reap "$positiond_pid"; status=$reaped
        echo "positiond: neither served nor exited within 15 s: $(grep -v '^$' "$work/ro-positiond.log" | head -n 3 | cut -c1-250 | tr '\n' ' ')"
        failures+=("positiond hung on a read-only database (neither ready nor exited within 15 s)")
    fi
    umount "$dir"
    if ((${#failures[@]})); then
        verdict readonly FAIL "$(printf '%s; ' "${failures[@]}")"
    else
        verdict readonly PASS "survey record refused with a message, the file is unchanged, positiond did not crash"
    fi
}

scenario_diskfull() {
    echo "== diskfull: survey record on a full disk"
    local dir="$work/full" big="$work/full.jsonl" status=0 failures=() i check
    loop_fs 4 "$dir"
    cp "$base" "$dir/db.sqlite"
    for i in $(seq 1 60); do cat venues/demo-hall/survey.jsonl; done >"$big"
    echo "a $(df -k --output=size "$dir" | tail -n 1 | xargs) KiB ext4 loop filesystem, $(df -k --output=avail "$dir" | tail -n 1 | xargs) KiB free; survey record --no-tune of $(wc -l <"$big") lines ($(($(stat -c %s "$big") >> 20)) MiB)"
    "$SURVEY" record --db "$dir/db.sqlite" --venue demo-hall "$big" --no-tune >"$work/full.out" 2>"$work/full.err" || status=$?
    echo "left on the filesystem: $(cd "$dir" && ls -s --block-size=K db.sqlite* | tr '\n' ' '), $(df -k --output=avail "$dir" | tail -n 1 | xargs) KiB free"
    echo "survey record: exit status $(describe_status "$status"); stderr: $(grep -v '^recording' "$work/full.err" | head -c 300)"
    ((status >= 1 && status < 128)) || failures+=("survey record: exit status $(describe_status "$status")")
    [[ -s "$work/full.err" ]] || failures+=("survey record printed no error message")
    # The disk is still full: the database must stay readable (positiond restarting now would open it).
    local stats=0
    "$SURVEY" stats --db "$dir/db.sqlite" --venue demo-hall >"$work/full-stats.out" 2>&1 || stats=$?
    echo "survey stats on the still-full disk: exit status $(describe_status "$stats")$( ((stats == 0)) || echo ": $(grep -v '^$' "$work/full-stats.out" | head -n 2 | cut -c1-200 | tr '\n' ' ')")"
    ((stats == 0)) || failures+=("survey stats on the still-full disk: exit status $(describe_status "$stats")")
    # Room made (the file and its WAL copied to a roomy disk, as an operator freeing space would see them).
    mkdir -p "$work/full-copy"
    cp "$dir/db.sqlite" "$work/full-copy/"
    [[ -f "$dir/db.sqlite-wal" ]] && cp "$dir/db.sqlite-wal" "$work/full-copy/"
    check=$(integrity "$work/full-copy/db.sqlite")
    echo "with room again: $(counts "$work/full-copy/db.sqlite" 2>&1); integrity_check: $check"
    [[ "$check" == ok ]] || failures+=("integrity_check: $check")
    [[ "$(content "$work/full-copy/db.sqlite")" == "$base_content" ]] || failures+=("the database changed")
    umount "$dir"
    if ((${#failures[@]})); then
        verdict diskfull FAIL "$(printf '%s; ' "${failures[@]}")"
    else
        verdict diskfull PASS "refused with a message (exit $status), still readable on the full disk, unchanged, integrity ok"
    fi
}

scenario_locked() {
    echo "== locked: positiond started while another process holds a write transaction"
    local db="$work/locked.sqlite" lock_pid status t0 ready="" located="" failures=()
    cp "$base" "$db"
    start "$PY" -c '
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
connection.execute("UPDATE venue SET name = name")
print("locked", flush=True)
time.sleep(60)' "$db" >"$work/lock.out" 2>&1
    lock_pid=$last_pid
    for _ in $(seq 1 100); do grep -q locked "$work/lock.out" && break; sleep 0.05; done
    grep -q locked "$work/lock.out" || { verdict locked FAIL "could not take the lock: $(cat "$work/lock.out")"; return; }
    echo "python3 holds BEGIN IMMEDIATE (with a pending UPDATE) on $db"
    t0=$(date +%s%N)
    start_positiond "$db" "$work/locked.log"
    while (($(date +%s%N) - t0 < 5000000000)); do
        if curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$port/readyz"; then ready=$((($(date +%s%N) - t0) / 1000000)); break; fi
        bf_alive "$positiond_pid" || break
        sleep 0.1
    done
    if [[ -n "$ready" ]]; then
        located=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST -H 'Content-Type: application/json' \
            -d @venues/demo-hall/locate-request.json "http://127.0.0.1:$port/v1/venues/demo-hall/locate" || true)
        echo "positiond: /readyz 200 after $ready ms with the lock held; a locate: HTTP $located"
        [[ "$located" == 200 ]] || failures+=("a locate answered HTTP $located with the lock held")
    else
        failures+=("positiond did not answer /readyz within 5 s while the lock was held")
        # What a longer write (a big survey record) does to it: the lock held up to 15 s in all.
        while bf_alive "$positiond_pid" && (($(date +%s%N) - t0 < 15000000000)); do
            curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$port/readyz" && break
            sleep 0.1
        done
        echo "positiond: not ready after 5 s; $(bf_alive "$positiond_pid" && echo "still running" || echo "exited") at $((($(date +%s%N) - t0) / 1000000)) ms with the lock still held"
    fi
    kill "$lock_pid" 2>/dev/null || true
    reap "$lock_pid"
    echo "lock released"
    if bf_alive "$positiond_pid"; then
        if [[ -z "$ready" ]] && bf_wait_ready "$port" 30; then
            echo "positiond: ready $((($(date +%s%N) - t0) / 1000000)) ms after its start, once the lock was released"
        fi
        kill -TERM "$positiond_pid" 2>/dev/null || true
        reap "$positiond_pid"; status=$reaped
        echo "positiond stopped: exit status $(describe_status "$status")"
    else
        reap "$positiond_pid"; status=$reaped
        echo "positiond exited by itself after $((($(date +%s%N) - t0) / 1000000)) ms: status $(describe_status "$status"): $(grep -v '^$' "$work/locked.log" | head -n 2 | cut -c1-250 | tr '\n' ' ')"
        failures+=("positiond exited with status $(describe_status "$status")")
    fi
    if ((${#failures[@]})); then
        verdict locked FAIL "$(printf '%s; ' "${failures[@]}")"
    else
        verdict locked PASS "ready after $ready ms and located (HTTP 200) while another process held a write transaction"
    fi
}

started=$SECONDS
for scenario in "${scenarios[@]}"; do
    "scenario_${scenario//-/_}"
done
echo "== faults summary ($((SECONDS - started)) s)"
printf '%s\n' "${results[@]}"
failed=$(printf '%s\n' "${results[@]}" | grep -c '^FAIL' || true)
echo "$((${#results[@]} - failed)) passed, $failed failed"
((failed == 0)) || exit 1
