"""Rolls at one table are resolved one at a time, from reading plugin state to committing it.

Two rolls resolved side by side would each start from the same per-table state, and the
second commit would erase the first one's changes (a lost count, a botch spent twice).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sidecar import hookimpl
from sidecar.host.plugins import default_host
from sidecar.table.tables import Table
from tests.helpers import Peer, run, running_server


class Counter:
    """Counts the table's rolls in its state, holding each roll in its hook until the test
    releases it: a second roll can arrive meanwhile."""

    def __init__(self) -> None:
        self.inside = 0
        self.entered = asyncio.Event()      # a roll is in the hook
        self.both_inside = asyncio.Event()  # two rolls are in it at once
        self.release = asyncio.Event()

    @hookimpl
    async def sidecar_modify_roll(self, roll: Any) -> None:
        self.inside += 1
        self.entered.set()
        if self.inside > 1:
            self.both_inside.set()
        count = roll.state.get("count", 0)
        await self.release.wait()
        roll.state["count"] = count + 1
        self.inside -= 1

    @hookimpl
    def sidecar_modify_outcome(self, roll: Any, outcome: Any) -> None:
        outcome.notes.append(f"count={roll.state['count']} "
                             f"together={self.both_inside.is_set()}")


class WatchedTurn(asyncio.Lock):
    """A table's turn that tells when a roll waits for it."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = asyncio.Event()

    async def acquire(self) -> bool:
        if self.locked():
            self.waiting.set()
        return await super().acquire()


def _watched_turn(table: Table) -> asyncio.Lock:
    if table._turn is None:
        table._turn = WatchedTurn()
    return table._turn


def test_two_rolls_at_one_table_never_resolve_side_by_side(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(Table, "turn", property(_watched_turn))
    counter = Counter()
    host = default_host()
    host.register(counter, "counter", version="1.0", source="tests")

    async def scenario():
        async with running_server(host, plugin_timeout=30.0, rate_limit=0) as server:
            alice, bob = await Peer.open(server), await Peer.open(server)
            await alice.join(name="Alice", role="gm")
            await bob.join(name="Bob")
            turn = server.tables.get("t").turn
            first = asyncio.ensure_future(alice.roll())
            await asyncio.wait_for(counter.entered.wait(), 10)
            second = asyncio.ensure_future(bob.roll())
            # Bob's roll has arrived: it waits for the table's turn (or, side by side,
            # has entered the hook too). Only then does Alice's roll go on.
            arrived = [asyncio.ensure_future(turn.waiting.wait()),
                       asyncio.ensure_future(counter.both_inside.wait())]
            done, waiting = await asyncio.wait(arrived, timeout=10,
                                               return_when=asyncio.FIRST_COMPLETED)
            for task in waiting:
                task.cancel()
            assert done, "Bob's roll neither waited for the turn nor entered the hook"
            counter.release.set()
            outcomes = await asyncio.gather(first, second)
            notes = sorted(note for outcome in outcomes for note in outcome["notes"]
                           if note.startswith("count="))
            assert notes == ["count=1 together=False", "count=2 together=False"], notes
            await alice.close()
            await bob.close()
    run(scenario())
