#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL beside it: Debian's postgresql (installed when missing),
# `initdb` in a temporary folder, the server on a free loopback port, a database `beaconfix`, and
# BEACONFIX_TEST_POSTGRES=postgres://beaconfix@127.0.0.1:PORT/beaconfix in the command's environment.
# The server is stopped by its PID and the folder removed when the command ends, whatever its status,
# which is this script's.
#
#   scripts/with-postgres.sh swift test ...
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

(($# > 0)) || { echo "usage: scripts/with-postgres.sh COMMAND [ARGUMENT...]" >&2; exit 2; }
bf_apt postgresql
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[[ -x "$bin/postgres" ]] || { echo "FAIL: no PostgreSQL server under /usr/lib/postgresql" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/beaconfix-postgres.XXXXXX")
pid=""
cleanup() {
    if [[ -n "$pid" ]]; then
        # SIGINT is PostgreSQL's fast shutdown: open transactions are rolled back, then it exits.
        kill -INT "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf -- "$work"
}
trap cleanup EXIT

# PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user Debian's package made
# (setpriv execs, so $! below is the server itself and the signal reaches it).
as_owner=()
if ((EUID == 0)); then
    chown postgres: "$work"
    as_owner=(setpriv --reuid=postgres --regid=postgres --init-groups --)
fi
"${as_owner[@]}" "$bin/initdb" -D "$work/data" -U beaconfix --auth=trust --encoding=UTF8 --no-locale >"$work/initdb.log" 2>&1 \
    || { cat "$work/initdb.log" >&2; echo "FAIL: initdb" >&2; exit 1; }
port=$(bf_free_port)
# Loopback only, the socket in the folder, no fsync (a test cluster is thrown away), logs to a file. The
# tests run in parallel, each store with a pool of its own (up to 4 connections) and listeners besides:
# room for 300 sessions rather than the default 100.
"${as_owner[@]}" "$bin/postgres" -D "$work/data" -p "$port" -c listen_addresses=127.0.0.1 -k "$work" \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
    "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" && break
    bf_alive "$pid" || { cat "$work/server.log" >&2; echo "FAIL: PostgreSQL did not start" >&2; exit 1; }
    sleep 0.1
done
"$bin/pg_isready" -q -h 127.0.0.1 -p "$port" || { cat "$work/server.log" >&2; echo "FAIL: PostgreSQL not ready after 10 s" >&2; exit 1; }
"$bin/createdb" -h 127.0.0.1 -p "$port" -U beaconfix beaconfix
export BEACONFIX_TEST_POSTGRES="postgres://beaconfix@127.0.0.1:$port/beaconfix"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') (pid $pid) at $BEACONFIX_TEST_POSTGRES, in $work"
status=0
"$@" || status=$?
exit "$status"
