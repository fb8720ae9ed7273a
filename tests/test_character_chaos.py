"""Characters under kill -9: spends and outcomes are one journal write.

A real ``sidecar serve`` process (with a small sheet ruleset from ``--plugins-dir``) is
killed with SIGKILL twice while two seats and a GM roll as characters, each roll spending
or giving back points; clients reconnect and re-send their unanswered request with the
same id. Afterwards every character's values equal what its journaled events add up to,
in the journal's records and in what the server answers, and no request id was spent
twice — re-sending one after the restart answers the original. Bounded: three short
cycles.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sqlite3
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from sidecar.protocol.codec import decode, encode
from tests.helpers import Peer, run
from tests.support.serve import ServeProcess, free_port, serve_on

pytestmark = pytest.mark.slow  # a server killed and restarted under load

ROOT = Path(__file__).resolve().parent.parent
CHARACTERS = {"Ysolde": "Alice", "Brann": "Bob", "Gobelin": None}


def serve(port: int, db: Path, plugins: Path) -> ServeProcess:
    """``sidecar serve`` with the sheet ruleset of ``plugins``."""
    return serve_on(port, db, "--plugins-dir", str(plugins))


async def request(url: str, member: dict, message: dict) -> dict:
    """Join as ``member`` (:meth:`Peer.join`'s arguments), send ``message``, return the
    answer to it, leave."""
    peer = await Peer.connect(url)
    try:
        await peer.join(**member)
        return await peer.request(message)
    finally:
        await peer.close()


class Roller:
    """Rolls as one character, reconnecting and re-sending its unanswered id."""

    def __init__(self, url: str, member: dict, character: str, seed: int) -> None:
        self.url, self.member, self.character = url, member, character
        self.random = random.Random(seed)
        self.answered: dict[str, dict] = {}
        self.counter = 0
        self.pending: str | None = None

    def message(self) -> dict:
        """The roll sent for the pending id (the same again when re-sent)."""
        return {"type": "roll", "id": self.pending, "ruleset": "luck",
                "params": {"cost": self.cost}, "character": self.character}

    async def run(self, done: asyncio.Event) -> None:
        while not done.is_set():
            try:
                peer = await Peer.connect(self.url, open_timeout=2, close_timeout=1)
            except (OSError, InvalidHandshake, TimeoutError):
                await asyncio.sleep(0.05)
                continue
            ws = peer.ws
            try:
                await peer.join(**self.member)
                while not done.is_set():
                    if self.pending is None:
                        self.pending = f"{self.character}-{self.counter}"
                        self.counter += 1
                        self.cost = self.random.choice((1, 1, -1, 2, -2))
                    await ws.send(encode(self.message(), binary=True))
                    while True:
                        reply = decode(await asyncio.wait_for(ws.recv(), 3))
                        if reply.get("id") == self.pending:
                            break
                    assert reply["type"] in ("outcome", "error"), reply
                    if reply["type"] == "error":
                        assert reply["code"] == "insufficient", reply
                    self.answered[self.pending] = reply
                    self.pending = None
            except (ConnectionClosed, OSError, TimeoutError):
                pass
            finally:
                ws.transport.abort()
            await asyncio.sleep(0.02)


async def seat_rollers(url: str, gm: dict, kind: type[Roller]) -> list[Roller]:
    """Two seats and the table's three characters (one an NPC of the GM's), each made with
    3 luck, and a ``kind`` of roller for each, as its owner (the GM for the NPC)."""
    tokens = {}
    for seat in ("Alice", "Bob"):
        reply = await request(url, gm, {"type": "seat", "id": f"s-{seat}", "op": "add",
                                        "name": seat})
        tokens[seat] = reply["token"]
    for character, owner in CHARACTERS.items():
        reply = await request(url, gm, {
            "type": "sheet", "id": f"c-{character}", "op": "set",
            "character": character, "ruleset": "luck", "owner": owner,
            "values": {"luck": 3}})
        assert reply["type"] == "sheet", reply
    rollers = []
    for seed, (character, owner) in enumerate(CHARACTERS.items()):
        member = (gm if owner is None else
                  {"table": "c", "name": owner, "role": "player", "token": tokens[owner]})
        rollers.append(kind(url, member, character, seed))
    return rollers


async def kill_under_load(server: ServeProcess, rollers: list[Roller], port: int, db: Path,
                          plugins: Path) -> ServeProcess:
    """Three times: the rollers roll, the server is killed (-9) while their requests are in
    flight and started again, and they roll on until each round's count is answered.
    Returns the server running at the end."""
    for _ in range(3):
        done = asyncio.Event()
        tasks = [asyncio.create_task(r.run(done)) for r in rollers]
        target = sum(len(r.answered) for r in rollers) + 30
        while sum(len(r.answered) for r in rollers) < target:
            await asyncio.sleep(0.01)
        server.stop_checked(signal.SIGKILL)  # mid-load: rolls are in flight
        await asyncio.sleep(0.1)
        server = serve(port, db, plugins)
        target += 15
        while sum(len(r.answered) for r in rollers) < target:
            await asyncio.sleep(0.01)
        done.set()
        await asyncio.gather(*tasks)
    return server


def fold(db: Path) -> tuple[dict[str, int], dict[str, int], list[str]]:
    """Each character's luck as its events add up, as its record says, and the ids."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        bodies = [json.loads(row[0]) for row in connection.execute(
            "SELECT body FROM events WHERE table_name = 'c' ORDER BY seq")]
        records = {name: json.loads(body)["values"]["luck"] for name, body in
                   connection.execute("SELECT name, body FROM records WHERE "
                                      "table_name = 'c' AND kind = 'character'")}
    finally:
        connection.close()
    luck: dict[str, int] = {}
    ids = []
    for event in bodies:
        if event["type"] == "sheet":
            luck[event["character"]] = event["values"]["luck"]
        elif event["type"] == "outcome" and event.get("character"):
            luck[event["character"]] -= event["spent"].get("luck", 0)
            assert luck[event["character"]] == event["sheet"]["luck"]
            ids.append(event["request_id"])
    return luck, records, ids


def chaos_table(tmp_path: Path) -> tuple[Path, Path, int, str, dict[str, str]]:
    """What a kill -9 test serves: its plugins folder (the `luck` ruleset), journal, port,
    WebSocket URL and the GM's hello."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "luck_rules.py").write_text(
        (Path(__file__).parent / "sheet_plugin.py").read_text())
    port = free_port()
    return (plugins, tmp_path / "c.db", port, f"ws://127.0.0.1:{port}/ws",
            {"table": "c", "name": "MJ", "role": "gm"})


def test_spends_survive_kill_9_exactly_once(tmp_path):
    plugins, db, port, url, gm = chaos_table(tmp_path)

    async def scenario():
        server = serve(port, db, plugins)
        rollers = await seat_rollers(url, gm, Roller)
        server = await kill_under_load(server, rollers, port, db, plugins)
        # A request id re-sent after the restart answers the original, spends nothing.
        roller = rollers[0]
        rid, original = next((rid, reply) for rid, reply in roller.answered.items()
                             if reply["type"] == "outcome")
        before = (await request(url, gm, {"type": "sheet", "id": "l1", "op": "list"}))
        again = await request(url, roller.member, {"type": "roll", "id": rid,
                                                  "ruleset": "luck", "params": {"cost": 1},
                                                  "character": roller.character})
        assert again["duplicate"] is True and again["seq"] == original["seq"]
        after = await request(url, gm, {"type": "sheet", "id": "l2", "op": "list"})
        assert after["characters"] == before["characters"]
        server.stop_checked(signal.SIGKILL)
        return {c["character"]: c["values"]["luck"] for c in after["characters"]}

    served = run(scenario(), timeout=180)
    luck, records, ids = fold(db)
    assert luck == records == served
    assert len(ids) == len(set(ids)), "a request id was resolved twice"
    assert len(ids) >= 90
