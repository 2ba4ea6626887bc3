#!/usr/bin/env bash
# Times `survey tune` (map candidates on every core) on the survey of the `Tuning` benchmark: 24 beacons,
# 300 spots, 80 scans per spot (24,000 scan-log lines), against the requirement "a 300-spot, 24,000-line
# survey tunes in under 60 s on 2 cores". Prints wall time, CPU time and peak RSS of the tune.
#
#   scripts/tune-timing.sh [SEED]
#
# Builds `survey` with `make release` (make test's build, reused) and the Benchmarks package's
# `SyntheticSurvey` generator with scripts/benchmark-smoke.sh --build-only (the same scratch folder and flags),
# then works in a temporary folder that is removed on exit, whatever happens. Every step runs under
# `timeout`; an interrupt or TERM stops the running step (timeout signals its whole process group).
set -euo pipefail

seed="${1:-1}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_limit=3600 # seconds per build (a cold release build takes many minutes on 2 cores)
tune_limit=900   # seconds for the tune itself

[[ -x /usr/bin/time ]] || { echo "tune-timing: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/tune-timing.XXXXXX")"
step="" # pid of the running step's timeout
cleanup() { rm -rf -- "$work"; }
stop() {
    if [[ -n "$step" ]]; then
        kill -TERM "$step" 2>/dev/null || true
        wait "$step" 2>/dev/null || true
    fi
    exit "$1"
}
trap cleanup EXIT
trap 'stop 130' INT
trap 'stop 143' TERM

# Runs `timeout SECONDS COMMAND...` in the background and waits for it, so that the traps above run at
# once and can stop it. Output: redirect the call.
bounded() {
    local status=0
    timeout "$@" &
    step=$!
    wait "$step" || status=$?
    step=""
    return "$status"
}
failed() { tail -30 "$1" >&2; exit 1; }

echo "Building survey (make release)..."
bounded "$build_limit" make -C "$root" release >"$work/build.log" 2>&1 || failed "$work/build.log"
survey="$root/.build/release/survey"

echo "Building SyntheticSurvey (the benchmarks' build, in the same scratch folder with the same flags)..."
bounded "$build_limit" "$root/scripts/benchmark-smoke.sh" --build-only >"$work/build.log" 2>&1 || failed "$work/build.log"
generator="$root/.build/release/SyntheticSurvey"

bounded 300 "$generator" "$work" "$seed" >"$work/generated.txt"
read -r venue beacons spots lines <"$work/generated.txt"
echo "Survey: venue $venue, $beacons beacons, $spots spots, $lines lines (seed $seed)"

db="$work/tune.sqlite"
bounded 300 "$survey" venue import --db "$db" "$work/venue.json" >/dev/null
# stderr: record's progress bar.
bounded 600 "$survey" record --db "$db" --venue "$venue" --no-tune "$work/survey.jsonl" >"$work/record.txt" 2>/dev/null
sed -n '1p' "$work/record.txt"

echo "Tuning on $(nproc) cores (limit ${tune_limit} s)..."
bounded "$tune_limit" /usr/bin/time -v -o "$work/time.txt" "$survey" tune --db "$db" --venue "$venue" --quiet >"$work/tune.txt"
sed -n '1,4p' "$work/tune.txt"

field() { sed -n "s/^[[:space:]]*$1: //p" "$work/time.txt"; }
wall="$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)')"
user="$(field 'User time (seconds)')"
system="$(field 'System time (seconds)')"
rss_kb="$(field 'Maximum resident set size (kbytes)')"
wall_s="$(awk -v t="$wall" 'BEGIN { n = split(t, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }')"
echo
echo "survey tune, $lines lines at $spots spots, $(nproc) cores:"
printf '  wall time   %8.2f s\n' "$wall_s"
awk -v u="$user" -v s="$system" -v w="$wall_s" \
    'BEGIN { printf "  CPU time    %8.2f s (user %.2f + system %.2f; %.2f cores busy on average)\n", u + s, u, s, (u + s) / w }'
awk -v k="$rss_kb" 'BEGIN { printf "  peak RSS    %8.1f MiB\n", k / 1024 }'
awk -v w="$wall_s" 'BEGIN { printf "  target      %s (under 60 s)\n", (w < 60 ? "met" : "missed") }'
