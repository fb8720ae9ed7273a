"""Server memory with 1,000 idle joined connections, and per idle table.

    .venv/bin/python benchmarks/memory.py            # both
    .venv/bin/python benchmarks/memory.py --tables   # per idle table only

Reads the server process's resident memory (VmRSS) before and after 1,000 clients have
joined (10 tables of 100) and gone idle. Target: ≤ 100 MiB. Then the cost of an idle
table, what ``serve --max-tables``'s default is sized on: 1,000 tables of 1 GM, then
1,000 tables of 5 players, each idle once joined.
"""

from __future__ import annotations

import asyncio
import sys

import msgpack
from websockets.asyncio.client import connect

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _common import PLAYER, free_port, sidecar_server  # noqa: E402

CLIENTS = 1000


async def join_all(url: str) -> list:
    sockets = []
    for i in range(CLIENTS):
        ws = await connect(url, compression=None, ping_interval=None, max_queue=None)
        hello = {"type": "hello", "protocol": 1, "table": f"m{i % 10}", "name": f"c{i}",
                 "role": "observer"}
        if i < 10:  # a table is created by a player or GM; the others watch it
            hello.update(role="player", token=PLAYER)
        await ws.send(msgpack.packb(hello))
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


async def open_tables(url: str, tables: int, players: int) -> list:
    """``tables`` tables of ``players`` members each (the first opens it), all joined."""
    sockets = []
    for t in range(tables):
        for p in range(players):
            ws = await connect(url, compression=None, ping_interval=None, max_queue=None)
            await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": f"t{t}",
                                         "name": f"c{p}", "role": "player", "token": PLAYER}))
            while msgpack.unpackb(await ws.recv())["type"] != "welcome":
                pass  # (presence of those joined before)
            sockets.append(ws)
    return sockets


async def _idle_rss(server, port: int, tables: int, players: int) -> float:
    sockets = await open_tables(f"ws://127.0.0.1:{port}/ws", tables, players)
    await asyncio.sleep(2)  # idle; presence settled
    rss = server.rss_mib()
    for ws in sockets:
        ws.transport.abort()
    return rss


def measure_tables(tables: int = 1000, sizes: tuple[int, ...] = (1, 5)) -> list[dict]:
    """Resident memory per idle table, with 1 and with 5 members (connections included)."""
    rows = []
    for players in sizes:
        port = free_port()
        server = sidecar_server(port, "--max-tables", str(tables))
        try:
            before = server.rss_mib()

            after = asyncio.run(_idle_rss(server, port, tables, players))
        finally:
            server.stop()
        rows.append({"tables": tables, "players": players, "rss before MiB": before,
                     "rss MiB": after, "per table KiB": (after - before) * 1024 / tables})
    return rows


def main() -> None:
    for r in measure_tables():
        print(f"{r['tables']} idle tables of {r['players']}: server RSS {r['rss MiB']:.1f} MiB "
              f"(at start {r['rss before MiB']:.1f} MiB, {r['per table KiB']:.1f} KiB per "
              "table, its connections included)")
    if "--tables" in sys.argv:
        return
    for r in measure():
        print(f"{r['clients']} idle joined clients: server RSS {r['rss MiB']:.1f} MiB "
              f"(at start {r['rss before MiB']:.1f} MiB, {r['per client KiB']:.1f} KiB per "
              "client)")


if __name__ == "__main__":
    main()
