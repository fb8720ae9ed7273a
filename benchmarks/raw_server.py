"""The baselines the server is measured against, as plain websockets servers.

``echo``: decodes each MessagePack frame and answers with an outcome-sized map, encoded —
the bare cost of decode/encode/send, no rules. ``broadcast``: on any frame, sends the same
outcome-sized bytes to every connection with ``websockets.broadcast``. ``journaled``: the
least an authoritative server must do per roll and nothing more — decode, roll five d10
with the secure dice source, commit the outcome to SQLite (WAL, synchronous=NORMAL, as
the journal does), encode, send. No validation, plugins, visibility or per-table state:
a ceiling, not a server. ``grouped``: the same with one commit for all the rolls that
arrive in one turn of the event loop (group commit).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

import msgpack
from websockets.asyncio.server import broadcast, serve

OUTCOME = {"type": "outcome", "seq": 1, "roll": "0123456789abcdef", "table": "t",
           "by": {"name": "Aengus", "role": "player"}, "ruleset": "bloodlust",
           "params": {"pool": 5, "difficulty": 6, "willpower": False, "automatic": False,
                      "tense": False}, "label": "", "mode": "public",
           "dice": [{"sides": 10, "face": f, "success": f >= 6} for f in (3, 8, 10, 1, 6)],
           "result": {"success": True, "margin": 1, "kind": "success",
                      "label": {"fr": "Réussite modérée", "en": "Moderate success"},
                      "successes": 3, "ones": 1, "net": 2, "degree": "modérée",
                      "automatic": False, "willpower": False},
           "applied": [], "notes": [],
           "text": "Aengus — 5d10 diff. 6 : 3 succès, 1 × 1, 2 net → Réussite modérée"}


async def main(port: int, mode: str) -> None:
    clients = set()

    async def echo(ws) -> None:
        async for frame in ws:
            request = msgpack.unpackb(frame)
            await ws.send(msgpack.packb({**OUTCOME, "id": request.get("id")}))

    async def fan(ws) -> None:
        clients.add(ws)
        try:
            async for _ in ws:
                broadcast(clients, msgpack.packb(OUTCOME))
        finally:
            clients.discard(ws)

    database = sqlite3.connect(Path(tempfile.mkdtemp()) / "ceiling.db", isolation_level=None)
    database.execute("PRAGMA journal_mode = WAL")
    database.execute("PRAGMA synchronous = NORMAL")
    database.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, body TEXT)")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from sidecar.dice.sources import SecureDice

    seq = 0
    pools: dict[int, list[int]] = {}  # one set of face pools, as the pipeline keeps

    async def journaled(ws) -> None:
        nonlocal seq
        async for frame in ws:
            request = msgpack.unpackb(frame)
            seq += 1
            faces = SecureDice(pools).roll_many(5, 10)
            outcome = {**OUTCOME, "seq": seq, "id": request.get("id"),
                       "dice": [{"sides": 10, "face": f, "success": f >= 6} for f in faces]}
            database.execute("BEGIN")
            database.execute("INSERT INTO events VALUES (?, ?)", (seq, json.dumps(outcome)))
            database.execute("COMMIT")
            await ws.send(msgpack.packb(outcome))

    pending: list[tuple[int, dict, asyncio.Future]] = []

    def commit_pending() -> None:
        batch = pending[:]
        pending.clear()
        database.execute("BEGIN")
        database.executemany("INSERT INTO events VALUES (?, ?)",
                             [(number, json.dumps(outcome)) for number, outcome, _ in batch])
        database.execute("COMMIT")
        for _, _, done in batch:
            done.set_result(None)

    async def grouped(ws) -> None:
        nonlocal seq
        loop = asyncio.get_running_loop()
        async for frame in ws:
            request = msgpack.unpackb(frame)
            seq += 1
            faces = SecureDice(pools).roll_many(5, 10)
            outcome = {**OUTCOME, "seq": seq, "id": request.get("id"),
                       "dice": [{"sides": 10, "face": f, "success": f >= 6} for f in faces]}
            done = loop.create_future()
            if not pending:  # one commit for every roll that arrives in this loop turn
                loop.call_soon(commit_pending)
            pending.append((seq, outcome, done))
            await done
            await ws.send(msgpack.packb(outcome))

    handlers = {"echo": echo, "broadcast": fan, "journaled": journaled, "grouped": grouped}
    async with serve(handlers[mode], "127.0.0.1", port, compression=None,
                     max_size=64 * 1024, ping_interval=None):
        print("ready", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
