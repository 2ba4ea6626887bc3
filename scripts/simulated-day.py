"""Posts a day of simulated visitors (survey simulate --visitors) to positiond's tracked route.

Each visitor's samples go in time order, 30 a request (what a phone buffering half a minute sends), the
visitors interleaved over a few keep-alive connections. Samples in the future (visitors still there now)
are left out: positiond refuses a `t` more than 300 s ahead. Ground truth is stripped, as an app sends.
Usage: simulated-day.py VISITORS_JSONL PORT
"""
import collections
import http.client
import json
import math
import sys
import threading
import time

path, port = sys.argv[1], int(sys.argv[2])
now = time.time()
by_device = collections.defaultdict(list)
for line in open(path):
    sample = json.loads(line)
    if sample["t"] > now:
        continue
    by_device[sample["device"]].append({"t": sample["t"], "device": sample["device"], "beacons": sample["beacons"]})
devices = sorted(by_device)
errors = []
posted = [0]
lock = threading.Lock()


def worker(names):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for name in names:
        samples = by_device[name]
        for start in range(0, len(samples), 30):
            body = json.dumps({"samples": samples[start:start + 30]})
            connection.request("POST", f"/v1/venues/demo-hall/devices/{name}/samples", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                errors.append(f"{name}: {response.status}")
            with lock:
                posted[0] += len(samples[start:start + 30])


threads = [threading.Thread(target=worker, args=(devices[i::2],)) for i in range(2)]
started = time.time()
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(f"posted {posted[0]} samples of {len(devices)} visitors in {time.time() - started:.0f} s; {len(errors)} refused")

# The truth, from the samples' ground truth: runs of samples whose true position lies in one zone (demo-hall's
# rooms, as venue.json draws them; the meeting rooms first, as there), from their first sample to the first
# sample elsewhere, a visitor's last run ending at its last sample (where positiond closes it).
ROOMS = [("Entrance", 0, 0, 10, 0, 24), ("Main hall", 0, 10, 31, 0, 24), ("Bar", 0, 31, 40, 0, 24),
         ("Meeting rooms", 1, 20, 40, 12, 24), ("Gallery west", 1, 0, 20, 0, 24), ("Gallery east", 1, 20, 40, 0, 12)]


def room(x, y, floor):
    for name, level, x0, x1, y0, y1 in ROOMS:
        if level == floor and x0 <= x <= x1 and y0 <= y <= y1:
            return name
    return None


truth = collections.defaultdict(list)
for line in open(path):
    sample = json.loads(line)
    if sample["t"] <= now:
        truth[sample["device"]].append((sample["t"], room(sample["x"], sample["y"], sample["floor"])))
durations = collections.defaultdict(list)
for runs in truth.values():
    current, since, last = None, None, None
    for t, zone in runs:
        if zone != current:
            if current is not None:
                durations[current].append(t - since)
            current, since = zone, t
        last = t
    if current is not None:
        durations[current].append(last - since)


def rank(values, fraction):
    values = sorted(values)
    return values[max(0, math.ceil(fraction * len(values)) - 1)]


print("the truth (ground truth of the posted samples; visits of at least 10 s):")
print("  zone                      visits    median       p90")
for zone in sorted(durations):
    kept = [d for d in durations[zone] if d >= 10]
    print(f"  {zone:<24} {len(kept):>7}  {rank(kept, 0.5):>8.0f} s  {rank(kept, 0.9):>8.0f} s")
if errors:
    print("\n".join(errors[:10]))
    sys.exit(1)
