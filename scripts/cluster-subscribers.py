"""Venue-wide live subscribers for scripts/cluster.sh: one WebSocket to /v1/venues/VENUE/live on each
replica given (directly, not through nginx), held until STOP_FILE exists; then prints one JSON line per
subscriber: the replica's URL, messages by type, the devices whose positions it saw, how many positions
came out of order for their device (time going back), and an error if the socket failed. Needs the
`websockets` package (PyPI).

    python3 scripts/cluster-subscribers.py VENUE READY_FILE STOP_FILE OUT_FILE URL...

READY_FILE is written once every subscriber has its 'subscribed' message. A subscriber whose replica dies
keeps what it saw until then (cluster.sh kills one replica on purpose).
"""

import asyncio
import json
import os
import sys
import time

import websockets


async def subscriber(base, venue, entry, ready, stop_file):
    url = f"{base.replace('http', 'ws', 1)}/v1/venues/{venue}/live"
    last = {}
    try:
        async with websockets.connect(url, open_timeout=10, max_queue=None, max_size=1 << 22) as socket:
            first = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))
            if first.get("type") != "subscribed":
                entry["error"] = f"first message is not 'subscribed': {first}"
                return
            ready.append(base)
            while not os.path.exists(stop_file):
                try:
                    message = json.loads(await asyncio.wait_for(socket.recv(), timeout=0.5))
                except asyncio.TimeoutError:
                    continue
                kind = message.get("type", "?")
                entry["messages"][kind] = entry["messages"].get(kind, 0) + 1
                if kind == "position":
                    device, t = message.get("device"), message.get("time", 0)
                    if device in last and t < last[device]:
                        entry["out_of_order"] += 1
                    last[device] = t
    except Exception as error:  # a close, a reset (the killed replica), a refused connection
        entry["error"] = f"{type(error).__name__}: {error}"
    finally:
        entry["devices"] = sorted(last)
        entry["seconds"] = round(time.monotonic() - entry.pop("started"), 1)


async def main():
    venue, ready_file, stop_file, out_file, *urls = sys.argv[1:]
    entries, ready, tasks = [], [], []
    for url in urls:
        entry = {"replica": url, "messages": {}, "out_of_order": 0, "started": time.monotonic()}
        entries.append(entry)
        tasks.append(asyncio.create_task(subscriber(url, venue, entry, ready, stop_file)))
    deadline = time.monotonic() + 15
    while len(ready) < len(urls) and time.monotonic() < deadline and not all(t.done() for t in tasks):
        await asyncio.sleep(0.05)
    if len(ready) == len(urls):
        with open(ready_file, "w") as handle:
            handle.write(f"{len(urls)}\n")
    await asyncio.gather(*tasks)
    with open(out_file, "w") as handle:
        for entry in entries:
            handle.write(json.dumps(entry) + "\n")


asyncio.run(main())
