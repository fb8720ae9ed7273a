"""Seats and characters attacked as a hostile player would (contract §7, PROTOCOL.md §7).

Each test is one way found to get around a promise of §7, against a real server on a
loopback port: a removed or re-keyed seat that keeps acting, a join that slips in while a
seat is re-keyed, a stranger mapping out a table's seats and characters, a name that only
looks like a seat's, a plugin's malformed ``spend``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from sidecar.plugins import default_host
from tests import sheet_plugin
from tests.helpers import Peer, run, running_server


def _host(*extra: tuple[Any, str]):
    host = default_host(None)
    host.register(sheet_plugin, "luck_rules", version="1.0", source="tests")
    for plugin, name in extra:
        host.register(plugin, name, version="1.0", source="tests")
    return host


async def _gm(server, table="t"):
    gm = await Peer.open(server)
    await gm.join(table, "MJ", "gm")
    return gm


async def _seat(gm, name="Alice", rid=None):
    reply = await gm.request({"type": "seat", "id": rid or f"add-{name}", "op": "add",
                              "name": name})
    assert reply["type"] == "seat", reply
    return reply["token"]


async def _character(gm, name="Ysolde", owner="Alice", rid=None, **values):
    reply = await gm.request({"type": "sheet", "id": rid or f"set-{name}", "op": "set",
                              "character": name, "ruleset": "luck", "owner": owner,
                              "values": values})
    assert reply["type"] == "sheet", reply
    return reply


async def _until(predicate, what: str, rounds: int = 500) -> None:
    """Wait (bounded) for a state of the in-process server."""
    for _ in range(rounds):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


async def _closed_code(peer: Peer) -> int | None:
    """The code the server closed ``peer`` with (``None``: still open after 5 s)."""
    try:
        while True:
            await peer.recv()
    except TimeoutError:
        return None
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, "closed without a close frame"
        return closed.rcvd.code


async def _hello(server, name, token, table="t", role="player"):
    """A raw ``hello``: the first answer (welcome or error)."""
    peer = await Peer.open(server)
    await peer.send({"type": "hello", "protocol": 1, "table": table, "name": name,
                     "role": role, "token": token})
    return peer, await peer.recv()


# -- a removed or re-keyed seat keeps acting ------------------------------------------------

@pytest.mark.parametrize("op", ["remove", "rotate"])
def test_frames_a_seat_sends_after_its_removal_are_not_acted_on(op):
    """The server closes a removed seat's connection (1008), but until the client reads
    that close frame it can still send: those frames were still rolled, journaled, spent
    from the character and shown to the GMs."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            token = await _seat(gm)
            await _character(gm)
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token)
            # Alice's client stops reading: it will not see the close frame coming.
            alice.ws.transport.pause_reading()
            done = await gm.request({"type": "seat", "id": "x", "op": op, "name": "Alice"})
            assert done["type"] == "seat"
            # Sent after the server closed her seat's connection.
            await alice.send({"type": "roll", "id": "late", "ruleset": "luck",
                              "params": {"cost": 2}, "character": "Ysolde"})
            # Her connection ends on the server (the close's grace runs out).
            await _until(lambda: len(server.outboxes) == 1, "the seat's connection ended")
            page = await gm.request({"type": "history", "id": "h", "after": done["seq"]})
            assert page["events"] == [], page["events"]
            listing = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["luck"] == 3
            assert await gm.quiet(0.1) == []
    run(scenario())


def test_a_roll_waiting_for_its_turn_when_its_seat_is_removed_is_not_made():
    """A seat's roll accepted just before the GM removes the seat, waiting for the table's
    turn behind the removal, was made afterwards: a removed seat spent its character."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            token = await _seat(gm)
            await _character(gm)
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token)
            table = server.tables.get("t")
            turn = table.turn
            await turn.acquire()  # the table is busy (another roll being journaled)
            try:
                await gm.send({"type": "seat", "id": "x", "op": "remove", "name": "Alice"})
                await _until(lambda: len(turn._waiters or ()) == 1, "the removal waits")
                await alice.send({"type": "roll", "id": "r", "ruleset": "luck",
                                  "params": {"cost": 2}, "character": "Ysolde"})
                await _until(lambda: len(turn._waiters or ()) == 2, "the roll waits")
            finally:
                turn.release()
            done = await gm.recv_type("seat")
            assert await _closed_code(alice) == 1008
            await _until(lambda: len(server.outboxes) == 1, "the seat's connection ended")
            page = await gm.request({"type": "history", "id": "h", "after": done["seq"]})
            assert page["events"] == [], page["events"]
            listing = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["luck"] == 3
    run(scenario())


@pytest.mark.parametrize("op", ["remove", "rotate"])
def test_a_join_with_the_old_token_while_the_seat_change_is_journaled_is_closed_too(op):
    """``rotate``/``remove`` chose the connections to close before its journal write; a
    ``hello`` with the old token arriving during that write joined, and stayed joined on a
    token that no longer works."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            token = await _seat(gm)
            entered, release = asyncio.Event(), asyncio.Event()
            append = server.journal.append

            async def slow_append(event, *args, **kwargs):
                if event.get("type") == "seat" and event.get("op") == op:
                    entered.set()
                    await release.wait()
                return await append(event, *args, **kwargs)

            server.journal.append = slow_append
            await gm.send({"type": "seat", "id": "x", "op": op, "name": "Alice"})
            await asyncio.wait_for(entered.wait(), 5)
            late = await Peer.open(server)
            await late.join("t", "Alice", token=token)  # before the change is stored
            release.set()
            assert (await gm.recv_type("seat"))["op"] == op
            assert await _closed_code(late) == 1008
            # And the old token no longer joins.
            _, answer = await _hello(server, "Alice", token)
            assert answer["code"] == "forbidden"
    run(scenario())
