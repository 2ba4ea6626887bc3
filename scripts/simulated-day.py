"""Posts a day of simulated visitors (survey simulate --visitors) to positiond's tracked route.

Each visitor's samples go in time order, 30 a request (what a phone buffering half a minute sends), the
visitors interleaved over a few keep-alive connections. Samples in the future (visitors still there now)
are left out: positiond refuses a `t` more than 300 s ahead. Ground truth is stripped, as an app sends.
Usage: simulated-day.py VISITORS_JSONL PORT
"""
import collections
import http.client
import json
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
if errors:
    print("\n".join(errors[:10]))
    sys.exit(1)
