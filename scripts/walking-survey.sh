#!/usr/bin/env bash
# What a walking survey reaches against a stand-still one of the same duration (issue 25's figure).
#
#   scripts/walking-survey.sh [MINUTES ...]      # default: 3 6 10 20
#
# 1. Simulation (demo-hall's propagation model): for each duration, `survey simulate --survey-mode standing`
#    and `--survey-mode walking` give one surveyor's phone that many minutes; each survey is recorded
#    (the walk with `survey record --path`) and tuned, then evaluated on the same test walk (walk.jsonl,
#    another phone), single scans and the tracker's replay.
# 2. kolakowski-flat (../shared): its robot survey is continuous, one line every 2.4 s with its exact
#    position. The walk is made from it by keeping the exact position only every CHECKPOINT seconds (a
#    checkpoint) and placing the lines between by time; it is compared with the same lines at their exact
#    positions (the best a walk of that duration could do) over the first N minutes, on test.jsonl.
# Prints a Markdown table; nothing is kept (a temporary folder is removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=("$@")
[ ${#minutes[@]} -gt 0 ] || minutes=(3 6 10 20)
. scripts/common.sh
bf_binaries # BIN=folder: its survey; otherwise `make release`, a no-op after make test
survey=$SURVEY
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

row() { # name db test
    for mode in single replay; do
        flag=""; [ "$mode" = replay ] && flag="--replay"
        "$survey" evaluate --db "$2" --venue "$3" --test "$4" $flag --json 2>/dev/null | python3 -c "
import json, sys
r = json.load(sys.stdin)['report']; e = r['errors']
unknown = r['queries'] - r['located']
print(f\"| $1 | $mode | {e['mean']:.2f} | {e['median']:.2f} | {e['p90']:.2f} | {unknown} of {r['queries']} | {100 * r['within_accuracy']:.0f}% |\")"
    done
}

echo "| survey | queries | mean m | median m | p90 m | unknown | within radius |"
echo "|---|---|---|---|---|---|---|"
for m in "${minutes[@]}"; do
    for mode in standing walking; do
        dir="$work/sim-$mode-$m"
        "$survey" simulate --out "$dir" --survey-mode "$mode" --survey-minutes "$m" > /dev/null
        "$survey" venue import --db "$dir/db.sqlite" "$dir/venue.json" > /dev/null
        path=(); [ "$mode" = walking ] && path=(--path "$dir/path.jsonl")
        "$survey" record --db "$dir/db.sqlite" --venue demo-hall "${path[@]}" --json "$dir/survey.jsonl" > "$dir/record.json" 2>/dev/null
        row "demo-hall (simulated), $mode, $m min" "$dir/db.sqlite" demo-hall "$dir/walk.jsonl"
    done
done

flat=../shared/datasets/kolakowski-flat
if [ -d "$flat" ]; then
    for m in 20 60 162; do
        for labels in exact 20 60; do
            dir="$work/flat-$labels-$m"; mkdir -p "$dir"
            python3 - "$flat/survey.jsonl" "$m" "$labels" "$dir" <<'PY'
import json, sys
source, minutes, labels, folder = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
lines = [json.loads(l) for l in open(source) if l.strip()]
start = lines[0]["t"]
lines = [l for l in lines if l["t"] < start + minutes * 60]
with open(f"{folder}/survey.jsonl", "w") as survey, open(f"{folder}/path.jsonl", "w") as path:
    next_checkpoint = start
    for l in lines:
        if labels != "exact":
            if l["t"] >= next_checkpoint or l is lines[-1]:
                path.write(json.dumps({"t": l["t"], "x": l["x"], "y": l["y"], "floor": l["floor"]}) + "\n")
                next_checkpoint = l["t"] + float(labels)
            l = {k: v for k, v in l.items() if k not in ("spot", "x", "y", "floor")}
        survey.write(json.dumps(l) + "\n")
PY
            "$survey" venue import --db "$dir/db.sqlite" "$flat/venue.json" > /dev/null
            path=(); [ "$labels" = exact ] || path=(--path "$dir/path.jsonl")
            "$survey" record --db "$dir/db.sqlite" --venue kolakowski-flat "${path[@]}" --json "$dir/survey.jsonl" > /dev/null 2>&1
            name="exact positions"; [ "$labels" = exact ] || name="walk, a checkpoint every $labels s"
            row "kolakowski-flat, first $m min, $name" "$dir/db.sqlite" kolakowski-flat "$flat/test.jsonl"
        done
    done
fi
