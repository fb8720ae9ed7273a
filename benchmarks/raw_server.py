"""The baselines the server is measured against, as plain websockets servers.

``echo``: decodes each MessagePack frame and answers with an outcome-sized map, encoded —
the bare cost of decode/encode/send, no rules. ``broadcast``: on any frame, sends the same
outcome-sized bytes to every connection with ``websockets.broadcast``.
"""

from __future__ import annotations

import asyncio
import sys

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

    async with serve(echo if mode == "echo" else fan, "127.0.0.1", port, compression=None,
                     max_size=64 * 1024, ping_interval=None):
        print("ready", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
