"""A table too large for one frame still lets its GMs in (issue 25, item 9).

50 seats with 64-character names, 1,000 characters (64-character names, twenty per
seat) and 200 open asks, each naming every seat, on a real ``sidecar serve`` process with
its journal on disk. Before: every GM ``hello`` was closed 1013 (the welcome carried every
ask: past the 1 MiB a connection may leave unread), also after a restart; ``sidecar
history --role gm`` crashed (« frame larger than 65536 »: the Python client refused any
frame over 64 KiB) and ``sidecar seat list`` hung. Now ``welcome`` carries the first page
of asks (``asks_more``), ``ask list`` and ``seat list`` come in pages like ``sheet list``,
and every client pages through.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import msgpack

from sidecar.client import SidecarClient
from tests.helpers import GM_TOKEN, Peer, hello, run
from tests.support.serve import ServeProcess, sidecar

SEATS = [f"{i:02d} " + "Siège-" * 10 + "x" for i in range(50)]
CHARACTERS = {f"{i:04d} " + "Personnage " * 5 + "y" * 4: SEATS[i % 50] for i in range(1000)}
ASKS = 200
#: What the welcome may carry of the table's characters and asks (24 KiB each), beyond
#: what it carries at an empty table, with room for the keys that say more follow.
WELCOME_ROOM = 2 * 24 * 1024 + 1024
PAGE = 64 * 1024


def test_names_are_as_long_as_names_may_be() -> None:
    assert {len(name) for name in SEATS} == {len(name) for name in CHARACTERS} == {64}


async def _build(server: ServeProcess) -> None:
    gm = await Peer.open(server)
    await gm.join(table="t", role="gm", name="MJ")
    for number, name in enumerate(SEATS):
        reply = await gm.request({"type": "seat", "id": f"s{number}", "op": "add",
                                  "name": name})
        assert reply["type"] == "seat", reply
    for number, (name, owner) in enumerate(CHARACTERS.items()):
        reply = await gm.request({"type": "sheet", "id": f"c{number}", "op": "set",
                                  "character": name, "ruleset": "bloodlust",
                                  "owner": owner, "values": {}})
        assert reply["type"] == "sheet", reply
    for number in range(ASKS):
        reply = await gm.request({"type": "ask", "id": f"a{number}", "op": "open",
                                  "to": SEATS, "ruleset": "bloodlust",
                                  "params": {"pool": 1}, "label": f"Demande {number}"})
        assert reply["type"] == "ask", reply
    await gm.close()


def _decoded(frame: bytes) -> dict[str, Any]:
    """A frame as read here: MessagePack of any size (what is checked is the size)."""
    return msgpack.unpackb(frame, raw=False)


async def _welcome_frame(server: ServeProcess, table: str) -> tuple[Peer, bytes]:
    peer = await Peer.open(server)
    await peer.send(hello(table, "MJ2", "gm"))
    frame = await asyncio.wait_for(peer.ws.recv(), 20)  # closed 1013 before
    return peer, frame


async def _pages(peer: Peer, request: dict[str, Any], key: str, after: Any
                 ) -> list[dict[str, Any]]:
    """Every page of a list, each frame within 64 KiB."""
    found: list[dict[str, Any]] = []
    while True:
        await peer.send({**request, "after": after})
        while True:
            frame = await asyncio.wait_for(peer.ws.recv(), 20)
            page = _decoded(frame)
            if page.get("id") == request["id"]:
                break
        assert page["type"] != "error", page
        assert len(frame) <= PAGE, (key, len(frame))
        found += page[key]
        if not page["more"]:
            return found
        assert page[key], "a page that says more follow holds at least one"
        after = page["next"]


async def _gm_checks(server: ServeProcess) -> None:
    empty, frame = await _welcome_frame(server, "vide")
    base = len(frame)
    await empty.close()
    gm, frame = await _welcome_frame(server, "t")
    welcome = _decoded(frame)
    assert welcome["type"] == "welcome", welcome
    assert len(frame) <= base + WELCOME_ROOM, (len(frame), base)
    assert welcome["asks_more"] is True and welcome["characters_more"] is True
    first = welcome["asks"]
    rest = await _pages(gm, {"type": "ask", "id": "al", "op": "list"}, "asks",
                        first[-1]["seq"])
    asks = first + rest
    assert len(asks) == ASKS and len({ask["ask"] for ask in asks}) == ASKS
    assert [ask["seq"] for ask in asks] == sorted(ask["seq"] for ask in asks)
    assert [ask["label"] for ask in asks] == [f"Demande {n}" for n in range(ASKS)]
    seats = await _pages(gm, {"type": "seat", "id": "sl", "op": "list"}, "seats", "")
    assert [seat["name"] for seat in seats] == sorted(SEATS)
    await gm.close()


def _cli_checks(server: ServeProcess) -> None:
    where = ["--url", server.url, "--table", "t", "--token", GM_TOKEN]
    history = sidecar("history", "--role", "gm", *where, "--json", timeout=60)
    assert history.returncode == 0, history.stderr[-2000:]
    events = [json.loads(line) for line in history.stdout.splitlines()]
    assert len(events) == len(SEATS) + len(CHARACTERS) + ASKS
    listed = sidecar("seat", "list", *where, "--json", timeout=15)
    assert listed.returncode == 0, listed.stderr[-2000:]
    seats = json.loads(listed.stdout)
    assert {seat["name"]: seat["characters"] for seat in seats} == {
        seat: sorted(c for c, owner in CHARACTERS.items() if owner == seat) for seat in SEATS}
    asks = sidecar("ask", "list", *where, "--json", timeout=30)
    assert asks.returncode == 0, asks.stderr[-2000:]
    assert len(json.loads(asks.stdout)) == ASKS


async def _python_client(server: ServeProcess) -> None:
    async with SidecarClient(server.url, table="t", name="MJ3", role="gm",
                             token=GM_TOKEN) as gm:
        assert len(gm.asks) == ASKS  # the welcome's page, then every other
        assert len(await gm.list_asks()) == ASKS
        seats = await gm.seats()
        assert sum(len(seat["characters"]) for seat in seats) == len(CHARACTERS)


def test_a_gm_joins_a_table_of_fifty_long_seats_and_two_hundred_asks(tmp_path: Path) -> None:
    journal = str(tmp_path / "sidecar.db")
    with ServeProcess("--db", journal, "--rate-limit", "0") as server:
        run(_build(server), timeout=300)
        run(_gm_checks(server), timeout=120)
        _cli_checks(server)
        run(_python_client(server), timeout=120)
        assert server.stop() == 0
    # After a restart (the asks are read again from the journal): the same.
    with ServeProcess("--db", journal, "--rate-limit", "0") as server:
        run(_gm_checks(server), timeout=120)
        assert server.stop() == 0
