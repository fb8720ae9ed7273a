"""Server memory with 1,000 idle joined connections.

    .venv/bin/python benchmarks/memory.py

Reads the server process's resident memory (VmRSS) before and after 1,000 clients have
joined (10 tables of 100) and gone idle. Target: ≤ 100 MiB.
"""

from __future__ import annotations

import asyncio
import sys

import msgpack
from websockets.asyncio.client import connect

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _common import free_port, sidecar_server  # noqa: E402

CLIENTS = 1000


async def join_all(url: str) -> list:
    sockets = []
    for i in range(CLIENTS):
        ws = await connect(url, compression=None, ping_interval=None, max_queue=None)
        await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": f"m{i % 10}",
                                     "name": f"c{i}", "role": "observer"}))
        await ws.recv()
        sockets.append(ws)
    return sockets


def measure() -> list[dict]:
    port = free_port()
    server = sidecar_server(port)
    try:
        before = server.rss_mib()

        async def scenario() -> float:
            sockets = await join_all(f"ws://127.0.0.1:{port}/ws")
            await asyncio.sleep(2)  # idle; presence storms settled
            rss = server.rss_mib()
            for ws in sockets:
                ws.transport.abort()
            return rss

        after = asyncio.run(scenario())
    finally:
        server.stop()
    return [{"clients": CLIENTS, "rss before MiB": before, "rss MiB": after,
             "per client KiB": (after - before) * 1024 / CLIENTS}]


def main() -> None:
    for r in measure():
        print(f"{r['clients']} idle joined clients: server RSS {r['rss MiB']:.1f} MiB "
              f"(at start {r['rss before MiB']:.1f} MiB, {r['per client KiB']:.1f} KiB per "
              "client)")


if __name__ == "__main__":
    main()
