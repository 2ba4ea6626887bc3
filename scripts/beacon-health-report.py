#!/usr/bin/env python3
"""Beacon health on the shared walks, measured with the product: every fault of docs/beacon-health.md injected
at each walk's midpoint (`survey evaluate --replay --adapt --kill|--shift|--swap|--swap-in ...@50%`), each
walk replayed with and without the monitor, and a replacement proposed from live traffic accepted through
positiond against one made with a calibration walk. Prints markdown tables (docs/beacon-health.md holds
them). Takes about 10 minutes on 2 cores.

    scripts/beacon-health-report.py [BIN] [DATASETS]     BIN holds survey and positiond (.build/release);
                                                         DATASETS is ../shared/datasets
"""
import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release")
DATA = sys.argv[2] if len(sys.argv) > 2 else os.path.normpath(os.path.join(ROOT, "../shared/datasets"))
SURVEY, POSITIOND = os.path.join(BIN, "survey"), os.path.join(BIN, "positiond")
WALKS = ["uji-geo-p4", "uji-geo-p12", "uji-geo-p20", "kolakowski-flat"]
WORK = tempfile.mkdtemp(prefix="beacon-health-report.")


def survey(*arguments, check=True):
    result = subprocess.run([SURVEY, *arguments], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise SystemExit(f"survey {' '.join(arguments)} failed: {result.stderr}")
    return result


def database(dataset):
    """The dataset imported and recorded (tuned) once; a copy for each use that writes."""
    path = os.path.join(WORK, dataset + ".sqlite")
    if not os.path.exists(path):
        survey("venue", "import", "--db", path, os.path.join(DATA, dataset, "venue.json"))
        survey("record", "--db", path, "--venue", dataset, os.path.join(DATA, dataset, "survey.jsonl"))
    return path


def evaluate(dataset, *faults, adapt=True, walk=None, db=None):
    arguments = ["evaluate", "--db", db or database(dataset), "--venue", dataset, "--test", walk or os.path.join(DATA, dataset, "test.jsonl"),
                 "--replay", "--json", *faults] + (["--adapt"] if adapt else [])
    return json.loads(survey(*arguments).stdout)


def mean(report):
    return report["report"]["errors"]["mean"]


def beacons(dataset):
    return json.load(open(os.path.join(DATA, dataset, "venue.json")))["beacons"]


def identity(beacon):
    return f"{beacon['uuid']}:{beacon['major']}:{beacon['minor']}"


def most_heard(dataset):
    """The survey's beacons, most heard first (the survey, never the walk, says which)."""
    counts = {}
    for line in open(os.path.join(DATA, dataset, "survey.jsonl")):
        for reading in json.loads(line)["beacons"]:
            counts[identity(reading)] = counts.get(identity(reading), 0) + 1
    labels = {identity(beacon): beacon["label"] for beacon in beacons(dataset)}
    return [labels[beacon] for beacon, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def alarms(report):
    return [(change.get("label"), change["to"]) for change in report["adaptive"]["changes"] if change["to"] not in ("healthy", "insufficient_evidence")]


def summary(values):
    values = [value for value in values if value is not None]
    if not values:
        return "-"
    return f"median {statistics.median(values):.0f}, max {max(values)}"


def row(*cells):
    print("| " + " | ".join(str(cell) for cell in cells) + " |")


def worse(adapted, plain):
    return f"{100 * (adapted / plain - 1):+.1f}%"


def faults_table():
    print("### Faults at each walk's midpoint (replay through the tracker, mean error in metres)\n")
    row("walk", "fault", "named", "located samples to name it", "of them expecting it", "offset dB (at naming / end)",
        "mean without → with --adapt", "worst run", "false alarms")
    row(*["---"] * 9)
    for dataset in WALKS:
        intact_plain, intact = evaluate(dataset, adapt=False), evaluate(dataset)
        row(dataset, "none", "-", "-", "-", "-", f"{mean(intact_plain):.3f} → {mean(intact):.3f}", worse(mean(intact), mean(intact_plain)),
            len(alarms(intact)) or "none")
        labels = [beacon["label"] for beacon in beacons(dataset)]
        for kind, fault in (("each beacon dead", lambda label: ["--kill", f"{label}@50%"]),
                            ("each beacon 10 dB quieter", lambda label: ["--shift", f"{label}:-10@50%"]),
                            ("each beacon 10 dB louder", lambda label: ["--shift", f"{label}:10@50%"])):
            named, samples, expected, offsets, plain_means, adapt_means, runs, false_alarms = 0, [], [], [], [], [], [], 0
            for label in labels:
                plain, adapted = evaluate(dataset, *fault(label), adapt=False), evaluate(dataset, *fault(label))
                detection = adapted["adaptive"]["faults"][0]
                if detection.get("samples_to_detect") is not None:
                    named += 1
                    samples.append(detection["samples_to_detect"])
                    expected.append(detection["expected_samples_to_detect"])
                if "shift" in fault(label)[0] and detection.get("offset") is not None:
                    offsets.append((detection["offset"], detection.get("final_offset")))
                false_alarms += len([alarm for alarm in alarms(adapted) if alarm[0] != label])
                plain_means.append(mean(plain))
                adapt_means.append(mean(adapted))
                runs.append(mean(adapted) / mean(plain) - 1)
            offset_text = "-"
            if offsets:
                target = -10 if "quieter" in kind else 10
                within_naming = sum(1 for at, _ in offsets if abs(at - target) <= 2)
                within_end = sum(1 for _, end in offsets if end is not None and abs(end - target) <= 2)
                offset_text = f"within 2 dB: {within_naming} / {within_end} of {len(offsets)}"
            row(dataset, kind, f"{named} of {len(labels)}", summary(samples), summary(expected), offset_text,
                f"{statistics.mean(plain_means):.3f} → {statistics.mean(adapt_means):.3f}", f"{100 * max(runs):+.1f}%", false_alarms or "none")
        five = most_heard(dataset)[:5]
        faults = [argument for label in five for argument in ("--kill", f"{label}@50%")]
        plain, adapted = evaluate(dataset, *faults, adapt=False), evaluate(dataset, *faults)
        named = sum(1 for detection in adapted["adaptive"]["faults"] if detection.get("samples_to_detect") is not None)
        row(dataset, "5 most heard dead: " + ", ".join(five), f"{named} of 5",
            summary([detection.get("samples_to_detect") for detection in adapted["adaptive"]["faults"]]), "-", "-",
            f"{mean(plain):.3f} → {mean(adapted):.3f}", worse(mean(adapted), mean(plain)), "-")
    print()


def swap_pairs(dataset):
    placed = beacons(dataset)
    if dataset.startswith("uji"):
        # Across the lab: each beacon with its mirror image (B1 with B22, B2 with B21, ...).
        return [(f"B{index}", f"B{23 - index}") for index in range(1, 12)]
    return [(a["label"], b["label"]) for position, a in enumerate(placed) for b in placed[position + 1:]]


def swaps_table():
    print("### Two beacons swapped at each walk's midpoint\n")
    row("walk", "pairs", "named as the pair", "other pairs proposed", "located samples to name it", "mean without → with --adapt", "worst run")
    row(*["---"] * 7)
    for dataset in WALKS:
        if dataset != "uji-geo-p12" and dataset != "kolakowski-flat":
            continue
        pairs = swap_pairs(dataset)
        named, wrong, samples, plain_means, adapt_means, runs = 0, 0, [], [], [], []
        for a, b in pairs:
            plain, adapted = evaluate(dataset, "--swap", f"{a},{b}@50%", adapt=False), evaluate(dataset, "--swap", f"{a},{b}@50%")
            detection = adapted["adaptive"]["faults"][0]
            if detection.get("samples_to_detect") is not None:
                named += 1
                samples.append(detection["samples_to_detect"])
            wrong += len(adapted["adaptive"]["proposals"]) - (1 if detection.get("samples_to_detect") is not None else 0)
            plain_means.append(mean(plain))
            adapt_means.append(mean(adapted))
            runs.append(mean(adapted) / mean(plain) - 1)
        row(dataset, len(pairs), f"{named} of {len(pairs)}", wrong, summary(samples),
            f"{statistics.mean(plain_means):.3f} → {statistics.mean(adapt_means):.3f}", f"{100 * max(runs):+.1f}%")
    print()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def faulted_walk(dataset, old, new, gain):
    """The walk with `old` replaced by `new`, `gain` dB louder, from its midpoint; written to a file."""
    lines = [json.loads(line) for line in open(os.path.join(DATA, dataset, "test.jsonl"))]
    times = [line["t"] for line in lines]
    middle = (min(times) + max(times)) / 2
    path = os.path.join(WORK, f"{dataset}-{old}-swapped-in.jsonl")
    with open(path, "w") as out:
        for line in lines:
            if line["t"] >= middle:
                for reading in line["beacons"]:
                    if identity(reading) == old:
                        reading["major"], reading["minor"], reading["rssi"] = new[1], new[2], reading["rssi"] + gain
            out.write(json.dumps(line) + "\n")
    return path, lines


def calibration_walk(dataset, old, new, gain, spots=5):
    """The survey's samples at the `spots` spots nearest the old beacon, the old beacon swapped in: the walk
    `replace-beacon replace --calibration` takes."""
    venue = json.load(open(os.path.join(DATA, dataset, "venue.json")))
    place = next(beacon for beacon in venue["beacons"] if identity(beacon) == old)
    nearest = sorted(venue["spots"], key=lambda spot: math.hypot(spot["x"] - place["x"], spot["y"] - place["y"]))[:spots]
    names = {spot["name"] for spot in nearest}
    path = os.path.join(WORK, f"{dataset}-calibration.jsonl")
    with open(path, "w") as out:
        for line in open(os.path.join(DATA, dataset, "survey.jsonl")):
            line = json.loads(line)
            if line["spot"] not in names or not line["beacons"]:
                continue
            for reading in line["beacons"]:
                if identity(reading) == old:
                    reading["major"], reading["minor"], reading["rssi"] = new[1], new[2], reading["rssi"] + gain
            out.write(json.dumps(line) + "\n")
    return path


def replacement_table():
    print("### A beacon replaced by a new id 6 dB louder at the walk's midpoint: the proposal accepted, against a calibration walk\n")
    row("walk", "beacon", "proposed (located samples)", "offset dB, at proposal / accepted", "intact walk", "swapped in, survey as it is",
        "accepted through positiond", "replace --calibration (5 spots)")
    row(*["---"] * 8)
    for dataset in ("uji-geo-p12", "kolakowski-flat"):
        for label in most_heard(dataset)[:3]:
            old = identity(next(beacon for beacon in beacons(dataset) if beacon["label"] == label))
            uuid = old.split(":")[0]
            new = (uuid, 9, 99)
            walk, lines = faulted_walk(dataset, old, new, 6)
            proposed = evaluate(dataset, "--swap-in", f"{label},{uuid}:9:99:6@50%")["adaptive"]["faults"][0]
            intact = mean(evaluate(dataset, adapt=False))
            unchanged = mean(evaluate(dataset, adapt=False, walk=walk))
            # Through the product: positiond sees the walk as tracked samples, proposes, ops accept.
            db = os.path.join(WORK, f"{dataset}-accept.sqlite")
            shutil.copy(database(dataset), db)
            port = free_port()
            # The walk is posted faster than a phone sends: every sample is taken as evidence, as in the replay.
            daemon = subprocess.Popen([POSITIOND, "--db", db, "--port", str(port), "--log-level", "warning",
                                       "--health-samples-per-second", "1000000"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            accepted_text, offset = "not proposed", None
            try:
                for _ in range(100):
                    try:
                        urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1)
                        break
                    except OSError:
                        time.sleep(0.2)
                with open(walk) as handle:
                    walked = [json.loads(line) for line in handle]
                for line in walked:
                    body = json.dumps({"samples": [{"t": line["t"], "beacons": line["beacons"]}]}).encode()
                    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/venues/{dataset}/devices/walker/samples", data=body,
                                                     headers={"Content-Type": "application/json"})
                    try:
                        urllib.request.urlopen(request, timeout=5).read()
                    except urllib.error.HTTPError:
                        pass  # an empty scan is refused (422), as for any phone
                proposal = None
                for _ in range(50):
                    report = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/venues/{dataset}/beacons", timeout=5))
                    proposal = next((item for item in report["proposals"] if item["kind"] == "replace"), None)
                    if proposal:
                        break
                    time.sleep(0.2)
            finally:
                daemon.terminate()
                daemon.wait()
            if proposal:
                offset = proposal["offset_db"]
                survey("replace-beacon", "accept", "--db", db, "--venue", dataset, "--no-tune", str(proposal["id"]))
                accepted_text = f"{mean(evaluate(dataset, adapt=False, walk=walk, db=db)):.3f}"
            db = os.path.join(WORK, f"{dataset}-calibrated.sqlite")
            shutil.copy(database(dataset), db)
            calibration = calibration_walk(dataset, old, new, 6)
            replaced = json.loads(survey("replace-beacon", "replace", "--db", db, "--venue", dataset, "--old", old,
                                         "--new", f"{uuid}:9:99", "--calibration", calibration, "--no-tune", "--force", "--json").stdout)
            calibrated = mean(evaluate(dataset, adapt=False, walk=walk, db=db))
            at = proposed.get("offset")
            row(dataset, label, proposed.get("samples_to_detect") or "not proposed",
                f"{at:.1f} / {offset:.1f}" if at is not None and offset is not None else "-",
                f"{intact:.3f}", f"{unchanged:.3f}", accepted_text, f"{calibrated:.3f} (offset {replaced['offset']:.1f})")
    print()


def drift_table():
    """kolakowski-flat's walk against its survey, per anchor: the monitor's recent differences (gain-corrected)
    and the walk's own levels at its true positions (the survey's nearest spot), absolute and gain-corrected."""
    dataset = "kolakowski-flat"
    report = evaluate(dataset)
    venue = json.load(open(os.path.join(DATA, dataset, "venue.json")))
    spots = {spot["name"]: spot for spot in venue["spots"]}
    levels = {}
    for line in open(os.path.join(DATA, dataset, "survey.jsonl")):
        line = json.loads(line)
        for reading in line["beacons"]:
            levels.setdefault((line["spot"], identity(reading)), []).append(reading["rssi"])
    expected = {key: statistics.mean(values) for key, values in levels.items()}
    absolute, relative = {}, {}
    for line in open(os.path.join(DATA, dataset, "test.jsonl")):
        line = json.loads(line)
        spot = min(spots.values(), key=lambda spot: math.hypot(spot["x"] - line["x"], spot["y"] - line["y"]))["name"]
        differences = {identity(r): r["rssi"] - expected[(spot, identity(r))] for r in line["beacons"] if (spot, identity(r)) in expected}
        for beacon, difference in differences.items():
            absolute.setdefault(beacon, []).append(difference)
            others = [value for other, value in differences.items() if other != beacon]
            if len(others) >= 2:
                relative.setdefault(beacon, []).append(difference - statistics.median(others))
    print("### kolakowski-flat: the walk against its survey, per anchor (dB)\n")
    print(f"The monitor's venue gain at the walk's end: {report['adaptive'].get('recent_gain', float('nan')):+.1f} dB (all anchors alike).\n")
    row("anchor", "walk's own levels at its true positions, absolute", "the same against the other anchors", "the monitor's recent difference (replay)", "state")
    row(*["---"] * 5)
    for beacon in venue["beacons"]:
        key = identity(beacon)
        final = next(item for item in report["adaptive"]["final"] if item.get("label") == beacon["label"])
        difference = final.get("recent_difference")
        row(beacon["label"], f"{statistics.median(absolute[key]):+.1f}", f"{statistics.median(relative[key]):+.1f}",
            f"{difference:+.1f}" if difference is not None else "-", final["state"])
    print(f"\nReplay mean error: {mean(evaluate(dataset, adapt=False)):.3f} m without the monitor, {mean(report):.3f} m with it.\n")


try:
    started = time.monotonic()
    faults_table()
    swaps_table()
    replacement_table()
    drift_table()
    print(f"({time.monotonic() - started:.0f} s, {BIN}, {DATA})")
finally:
    shutil.rmtree(WORK, ignore_errors=True)
