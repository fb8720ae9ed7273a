"""A member's first message after its ``hello`` is its ``welcome``, even when others join
the same new table at the same moment (PROTOCOL.md §2).

With verifiable dice (the default) the first member to join a table starts its epoch: a
journaled event every member of the table receives. Before, a player who had joined but
was not welcomed yet received that event first (156 of 200 simultaneous joins: the
capacity benchmark counted them as refused), and so did any event of the table while its
welcome was being built.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from tests.helpers import PLAYER_TOKEN, Peer, hello, run
from tests.support.serve import ServeProcess

TABLES, PLAYERS = 40, 5


def test_simultaneous_joins_each_get_their_welcome_first():
    with ServeProcess("--db", ":memory:", "--rate-limit", "0",
                      "--max-connections-per-address", "0", dice="provable") as server:
        async def one(table: int, seat: int) -> tuple[str, int, list[int]]:
            peer = await Peer.open(server)
            await peer.send(hello(f"t{table}", f"p{seat}", token=PLAYER_TOKEN))
            first = await peer.recv(15)
            seqs = []
            if first["type"] == "welcome":
                # What comes after it is newer than what it describes.
                outcome = await peer.roll("bloodlust", {"pool": 2})
                seqs = [outcome["seq"]]
            await peer.close()
            return first["type"], first.get("seq", 0), seqs

        async def scenario() -> list[tuple[str, int, list[int]]]:
            return await asyncio.gather(*(one(table, seat) for table in range(TABLES)
                                          for seat in range(PLAYERS)))

        answers = run(scenario(), timeout=120)
        firsts = Counter(kind for kind, _, _ in answers)
        assert firsts == Counter({"welcome": TABLES * PLAYERS}), firsts
        assert all(seq > at for _, at, seqs in answers for seq in seqs)
