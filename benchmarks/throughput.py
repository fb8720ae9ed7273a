"""Roll throughput and latency through the whole pipeline, against a bare echo server.

    .venv/bin/python benchmarks/throughput.py

N clients (1, 10, 50), each at its own table, send rolls one after another for a few
seconds: decode → validate → plugins → resolve → journal → encode → send. The same load
against ``raw_server.py echo`` (decode + encode only) gives the raw limit of this machine.
The echo figure is the machine's raw limit, for reference.

Two ceilings are measured in the same run (``raw_server.py journaled`` and ``grouped``):
what a bare server reaches when it does only what no authoritative server can skip —
decode, secure dice, commit to SQLite before answering, encode — committing each roll
alone, or all the rolls of one event-loop turn together. The targets are set against the
group-commit ceiling (issue "one job per module"): at 50 clients ≥ 60 % of its rolls/s with
a p99 ≤ 2× its p99; at 1 client ≥ 80 % of its rolls/s.

``--loop uvloop`` runs the sidecar with ``sidecar serve --loop uvloop`` (uvloop installed).
"""

from __future__ import annotations

import asyncio
import sys
import time

import msgpack
from websockets.asyncio.client import connect

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _common import GM, free_port, percentile, raw_server, sidecar_server  # noqa: E402

DURATION = 3.0
ROLL = {"type": "roll", "ruleset": "bloodlust", "params": {"pool": 5}, "mode": "public"}


async def load(url: str, clients: int, join: bool) -> tuple[float, list[float]]:
    latencies: list[float] = []
    sockets = []
    for i in range(clients):
        ws = await connect(url, compression=None, max_size=1 << 20, ping_interval=None)
        if join:
            await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": f"b{i}",
                                         "name": f"c{i}", "role": "gm", "token": GM}))
            await ws.recv()  # welcome
            await ws.recv()  # presence
        sockets.append(ws)
    stop = time.perf_counter() + DURATION
    count = 0

    async def client(index: int, ws) -> None:
        nonlocal count
        n = 0
        while time.perf_counter() < stop:
            n += 1
            start = time.perf_counter()
            await ws.send(msgpack.packb({**ROLL, "id": f"{index}-{n}"}))
            await ws.recv()
            latencies.append(time.perf_counter() - start)
            count += 1

    began = time.perf_counter()
    await asyncio.gather(*(client(i, ws) for i, ws in enumerate(sockets)))
    elapsed = time.perf_counter() - began
    for ws in sockets:
        await ws.close()
    return count / elapsed, latencies


def raw_rate(mode: str, clients: int) -> tuple[float, list[float]]:
    port = free_port()
    server = raw_server(port, mode)
    try:
        return asyncio.run(load(f"ws://127.0.0.1:{port}/", clients, False))
    finally:
        server.stop()


def measure(server_args: tuple[str, ...] = ()) -> list[dict]:
    rows = []
    for clients in (1, 10, 50):
        echo_rate, echo_lat = raw_rate("echo", clients)
        alone, _ = raw_rate("journaled", clients)
        grouped, grouped_lat = raw_rate("grouped", clients)
        port = free_port()
        server = sidecar_server(port, *server_args)
        try:
            rate, lat = asyncio.run(load(f"ws://127.0.0.1:{port}/ws", clients, True))
        finally:
            server.stop()
        rows.append({"clients": clients, "rolls/s": rate, "echo/s": echo_rate,
                     "ratio": rate / echo_rate, "ceiling alone": alone / echo_rate,
                     "ceiling grouped": grouped / echo_rate, "grouped/s": grouped,
                     "vs grouped": rate / grouped,
                     "grouped p99 ms": percentile(grouped_lat, 0.99) * 1000,
                     "p50 ms": percentile(lat, 0.5) * 1000, "p99 ms": percentile(lat, 0.99) * 1000,
                     "echo p50 ms": percentile(echo_lat, 0.5) * 1000,
                     "echo p99 ms": percentile(echo_lat, 0.99) * 1000})
    return rows


def server_args_from(argv: list[str]) -> tuple[str, ...]:
    return ("--loop", argv[argv.index("--loop") + 1]) if "--loop" in argv else ()


def main() -> None:
    print(f"{'clients':>7} {'rolls/s':>9} {'grouped/s':>9} {'vs grp':>6} {'p99 ms':>7} "
          f"{'grp p99':>7} {'echo/s':>9} {'vs echo':>7} {'p50 ms':>7}")
    for r in measure(server_args_from(sys.argv)):
        print(f"{r['clients']:>7} {r['rolls/s']:>9.0f} {r['grouped/s']:>9.0f} "
              f"{r['vs grouped']:>6.0%} {r['p99 ms']:>7.2f} {r['grouped p99 ms']:>7.2f} "
              f"{r['echo/s']:>9.0f} {r['ratio']:>7.0%} {r['p50 ms']:>7.2f}")


if __name__ == "__main__":
    main()
