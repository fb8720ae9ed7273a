"""Server CPU seconds per roll, ``--dice secure`` against ``--dice provable``.

    .venv/bin/python benchmarks/provable_cpu.py [--pairs 5] [--rolls 3000] [--clients 4]

Rolls per second swing by tens of percent on a shared machine; the server's own CPU time
per roll does not (it is not charged for time it waits). So: a real ``sidecar serve`` per
run, ``--clients`` clients each at its own table joined first, then ``--rolls`` rolls in
all (bloodlust 5d10, each client rolling one after another), and the server process's
user + system CPU time over the rolls only (``/proc``), divided by the rolls. Runs come in
pairs, one of each dice source, the order alternated from pair to pair (A/B, B/A…) so a
drift of the machine's load weighs on both; the figure is the median of the pairs'
provable/secure ratios, with their range. Issue 28 made provable the default on this.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

import msgpack
from websockets.asyncio.client import connect

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _common import GM, free_port, sidecar_server  # noqa: E402
from provable_dice import cpu_seconds  # noqa: E402

ROLL = {"type": "roll", "ruleset": "bloodlust", "params": {"pool": 5}, "mode": "public"}


def _option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


async def _roll(url: str, pid: int, clients: int, rolls: int) -> tuple[float, float]:
    """(server CPU seconds, wall seconds) for ``rolls`` rolls from ``clients`` joined
    clients; joins and closes are outside the measure."""
    sockets = []
    for i in range(clients):
        ws = await connect(url, compression=None, max_size=1 << 20, ping_interval=None)
        await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": f"cpu{i}",
                                     "name": f"c{i}", "role": "gm", "token": GM}))
        while msgpack.unpackb(await ws.recv())["type"] != "presence":
            pass  # the welcome, then its own presence: joined and settled
        sockets.append(ws)
    each = rolls // clients

    async def client(index: int, ws) -> None:
        for n in range(each):
            await ws.send(msgpack.packb({**ROLL, "id": f"{index}-{n}"}))
            while msgpack.unpackb(await ws.recv()).get("id") != f"{index}-{n}":
                pass

    before, began = cpu_seconds(pid), time.perf_counter()
    await asyncio.gather(*(client(i, ws) for i, ws in enumerate(sockets)))
    cpu, wall = cpu_seconds(pid) - before, time.perf_counter() - began
    for ws in sockets:
        await ws.close()
    return cpu, wall


def run_once(dice: str, clients: int, rolls: int) -> tuple[float, float]:
    """(server CPU µs per roll, rolls per second) of one fresh server with ``--dice``."""
    port = free_port()
    server = sidecar_server(port, "--dice", dice)
    try:
        cpu, wall = asyncio.run(_roll(f"ws://127.0.0.1:{port}/ws", server.pid, clients,
                                      rolls))
    finally:
        server.stop()
    done = rolls // clients * clients
    return cpu / done * 1e6, done / wall


def measure(pairs: int = 5, clients: int = 4, rolls: int = 3000) -> list[dict[str, float]]:
    """One row per pair: each source's CPU µs per roll and rolls/s, and the ratio."""
    rows = []
    for pair in range(pairs):
        order = ("secure", "provable") if pair % 2 == 0 else ("provable", "secure")
        found = {dice: run_once(dice, clients, rolls) for dice in order}
        rows.append({"first": order[0],
                     "secure µs": found["secure"][0], "provable µs": found["provable"][0],
                     "secure/s": found["secure"][1], "provable/s": found["provable"][1],
                     "ratio": found["provable"][0] / found["secure"][0]})
    return rows


def main() -> None:
    pairs, rolls, clients = (_option("--pairs", 5), _option("--rolls", 3000),
                             _option("--clients", 4))
    print("load average:", " ".join(open("/proc/loadavg").read().split()[:3]))
    print(f"{pairs} pairs of {rolls} rolls (bloodlust 5d10) from {clients} clients, "
          "server CPU per roll")
    print(f"{'pair':>4} {'first':>8} {'secure µs':>10} {'provable µs':>12} {'ratio':>6}"
          f" {'secure/s':>9} {'provable/s':>10}")
    rows = measure(pairs, clients, rolls)
    for i, r in enumerate(rows, 1):
        print(f"{i:>4} {r['first']:>8} {r['secure µs']:>10.0f} {r['provable µs']:>12.0f}"
              f" {r['ratio']:>6.3f} {r['secure/s']:>9.0f} {r['provable/s']:>10.0f}")
    ratios = [r["ratio"] for r in rows]
    print(f"provable/secure CPU per roll: median {statistics.median(ratios):.3f} "
          f"({min(ratios):.3f}–{max(ratios):.3f}); secure "
          f"{statistics.median(r['secure µs'] for r in rows):.0f} µs, provable "
          f"{statistics.median(r['provable µs'] for r in rows):.0f} µs a roll (medians)")
    print("load average:", " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
