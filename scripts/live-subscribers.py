"""Live WebSocket subscribers for scripts/soak.sh: holds COUNT subscriptions to positiond's
/v1/venues/VENUE/live?device=ID open for SECONDS, counts their messages and disconnects, and prints one
JSON summary line at the end. Needs the `websockets` package (PyPI).

    python3 scripts/live-subscribers.py URL VENUE COUNT SECONDS READY_FILE DEVICE_PREFIX DEVICES

Subscriber k follows device DEVICE_PREFIX-(k * DEVICES / COUNT), so the subscribed devices spread over
the load's ids. READY_FILE is written once every subscriber has its 'subscribed' message. A subscription
that closes (or fails to open) before SECONDS are over is a disconnect; it is not reopened.
"""

import asyncio
import json
import sys
import time

import websockets


async def subscriber(url, stats, index, ready, deadline):
    entry = stats[index]
    try:
        async with websockets.connect(url, open_timeout=10, max_queue=None) as socket:
            first = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))
            if first.get("type") != "subscribed":
                entry["error"] = f"first message is not 'subscribed': {first}"
                return
            ready.append(index)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return  # closes cleanly on leaving the block
                try:
                    message = json.loads(await asyncio.wait_for(socket.recv(), timeout=left))
                except asyncio.TimeoutError:
                    return
                kind = message.get("type", "?")
                entry["messages"][kind] = entry["messages"].get(kind, 0) + 1
    except Exception as error:  # a close, a reset, a refused connection: all are disconnects here
        entry["error"] = f"{type(error).__name__}: {error}"
        entry["disconnected_after_s"] = round(time.monotonic() - entry["started"], 1)


async def main():
    base, venue, count, seconds, ready_file, prefix, devices = sys.argv[1:8]
    count, seconds, devices = int(count), float(seconds), int(devices)
    deadline = time.monotonic() + seconds
    stats, ready = [], []
    tasks = []
    for index in range(count):
        device = f"{prefix}-{index * devices // count}"
        url = f"{base.replace('http', 'ws', 1)}/v1/venues/{venue}/live?device={device}"
        stats.append({"device": device, "messages": {}, "started": time.monotonic()})
        tasks.append(asyncio.create_task(subscriber(url, stats, index, ready, deadline)))
    while len(ready) < count and any(not task.done() for task in tasks) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if len(ready) == count:
        with open(ready_file, "w") as handle:
            handle.write(f"{count}\n")
    await asyncio.gather(*tasks)
    failed = [entry for entry in stats if "error" in entry]
    print(json.dumps({
        "subscribers": count,
        "subscribed": len(ready),
        "disconnects": len(failed),
        "messages": sum(sum(entry["messages"].values()) for entry in stats),
        "positions": sum(entry["messages"].get("position", 0) for entry in stats),
        "zone_events": sum(entry["messages"].get("zone", 0) for entry in stats),
        "subscribers_with_messages": sum(1 for entry in stats if entry["messages"]),
        "min_messages": min(sum(entry["messages"].values()) for entry in stats),
        "failures": [{key: entry[key] for key in ("device", "error", "disconnected_after_s") if key in entry} for entry in failed][:10],
    }))


asyncio.run(main())
