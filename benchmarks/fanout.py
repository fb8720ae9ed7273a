"""Fan-out: one public outcome to 10, 100 and 500 clients of a table, until the last has it.

    .venv/bin/python benchmarks/fanout.py

Compared with ``raw_server.py broadcast``: ``websockets.broadcast`` of outcome-sized bytes
to the same number of connections. Target: p99 ≤ 1.5 × the raw broadcast's.
"""

from __future__ import annotations

import asyncio
import sys
import time

import msgpack
from websockets.asyncio.client import connect

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _common import GM, free_port, percentile, raw_server, sidecar_server  # noqa: E402

ROUNDS = 200  # enough rounds that p99 is not just the slowest of a few


async def fanout(url: str, members: int, join: bool) -> list[float]:
    async def open_client(name: str, role: str):
        ws = await connect(url, compression=None, max_size=1 << 20, ping_interval=None,
                           max_queue=None)
        if join:
            hello = {"type": "hello", "protocol": 1, "table": "fan", "name": name,
                     "role": role}
            if role == "gm":
                hello["token"] = GM
            await ws.send(msgpack.packb(hello))
            await ws.recv()
        return ws

    listeners = [await open_client(f"o{i}", "observer") for i in range(members)]
    roller = await open_client("roller", "gm")
    await asyncio.sleep(0.5)

    async def drain(ws) -> None:  # presence messages from the joins
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 0.05)
        except TimeoutError:
            pass

    await asyncio.gather(*(drain(ws) for ws in [*listeners, roller]))
    times = []
    for round_ in range(ROUNDS):
        start = time.perf_counter()
        await roller.send(msgpack.packb({"type": "roll", "id": f"f{round_}",
                                         "ruleset": "bloodlust", "params": {"pool": 5}}))
        async def one(ws) -> float:
            while True:
                message = msgpack.unpackb(await ws.recv())
                if message["type"] == "outcome":
                    return time.perf_counter()
        arrivals = await asyncio.gather(*(one(ws) for ws in listeners))
        await one(roller)
        times.append(max(arrivals) - start)
    for ws in [*listeners, roller]:
        await ws.close()
    return times


def measure() -> list[dict]:
    rows = []
    for members in (10, 100, 500):
        port = free_port()
        raw = raw_server(port, "broadcast")
        try:
            raw_times = asyncio.run(fanout(f"ws://127.0.0.1:{port}/", members, False))
        finally:
            raw.stop()
        port = free_port()
        server = sidecar_server(port)
        try:
            times = asyncio.run(fanout(f"ws://127.0.0.1:{port}/ws", members, True))
        finally:
            server.stop()
        rows.append({"clients": members, "p50 ms": percentile(times, 0.5) * 1000,
                     "p99 ms": percentile(times, 0.99) * 1000,
                     "raw p50 ms": percentile(raw_times, 0.5) * 1000,
                     "raw p99 ms": percentile(raw_times, 0.99) * 1000,
                     "p99 ratio": percentile(times, 0.99) / percentile(raw_times, 0.99)})
    return rows


def main() -> None:
    print(f"{'clients':>7} {'p50 ms':>8} {'p99 ms':>8} {'raw p50':>8} {'raw p99':>8} "
          f"{'p99 ratio':>9}")
    for r in measure():
        print(f"{r['clients']:>7} {r['p50 ms']:>8.2f} {r['p99 ms']:>8.2f} "
              f"{r['raw p50 ms']:>8.2f} {r['raw p99 ms']:>8.2f} {r['p99 ratio']:>8.2f}×")


if __name__ == "__main__":
    main()
