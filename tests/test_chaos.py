"""Chaos: clients keep rolling while the server process is killed and restarted.

A real ``sidecar serve`` process on a fixed loopback port is killed with SIGKILL three
times and stopped with SIGTERM twice, restarted each time on the same journal. Four
clients (a GM, two players, an observer) roll in every mode, reconnect with ``resume``
after each loss, and re-send an unacknowledged roll with the same id. At the end every
client's stream must equal, exactly and in order, what the journal says it may see; and
every roll a client saw acknowledged must be in the journal. Bounded: five cycles of under
a second of rolling each.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from sidecar.protocol.codec import decode, encode
from sidecar.table.visibility import HIDDEN, audience
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, Peer, run
from tests.support.serve import free_port, serve_on

pytestmark = pytest.mark.slow  # a server killed and restarted five times under load

ROOT = Path(__file__).resolve().parent.parent
MODES = ("public", "public", "gm", "blind", "self")


class ChaosClient:
    """Rolls (unless an observer), reconnects with resume, records its stream."""

    def __init__(self, url: str, name: str, role: str, seed: int) -> None:
        self.url, self.name, self.role = url, name, role
        self.random = random.Random(seed)
        self.stream: list[dict] = []
        self.acked: set[str] = set()
        self.last_seq = 0
        self.violations: list[str] = []
        self.counter = 0
        self.pending: str | None = None
        self.reconnects = 0

    async def _read(self, ws) -> None:
        async for frame in ws:
            message = decode(frame)
            if message["type"] != "outcome":
                continue
            if message.get("duplicate"):
                self.acked.add(message["id"])
                continue
            if message["seq"] <= self.last_seq:
                self.violations.append(f"seq {message['seq']} after {self.last_seq}")
            self.stream.append(message)
            self.last_seq = message["seq"]
            if message.get("id") is not None:
                self.acked.add(message["id"])

    async def run(self, rolling: asyncio.Event, done: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        while not done.is_set():
            try:
                peer = await Peer.connect(self.url, open_timeout=2, close_timeout=1)
            except (OSError, InvalidHandshake, TimeoutError):
                await asyncio.sleep(0.05)
                continue
            ws = peer.ws
            self.reconnects += 1
            reader = None
            try:
                # The observer too: it may come first, and opening a table takes a token.
                await peer.join("chaos", self.name, self.role, resume=self.last_seq,
                                token=GM_TOKEN if self.role == "gm" else PLAYER_TOKEN)
                reader = asyncio.create_task(self._read(ws))
                while not done.is_set() and not reader.done():
                    if self.role == "observer" or not rolling.is_set():
                        await asyncio.sleep(0.02)
                        continue
                    if self.pending is None:
                        self.pending = f"{self.name}-{self.counter}"
                        self.counter += 1
                    if self.pending in self.acked:
                        self.pending = None
                        continue
                    await ws.send(encode({"type": "roll", "id": self.pending,
                                          "ruleset": "bloodlust", "params": {"pool": 3},
                                          "mode": self.random.choice(MODES)}, binary=True))
                    deadline = loop.time() + 3
                    while (self.pending not in self.acked and not reader.done()
                           and loop.time() < deadline):
                        await asyncio.sleep(0.003)
            except (ConnectionClosed, OSError, TimeoutError):
                pass
            finally:
                if reader is not None and not reader.done():
                    reader.cancel()
                ws.transport.abort()
            await asyncio.sleep(0.02)


def journal_events(db: Path) -> list[dict]:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = connection.execute("SELECT body FROM events WHERE table_name = 'chaos' "
                                  "ORDER BY seq").fetchall()
    finally:
        connection.close()
    return [json.loads(row[0]) for row in rows]


def test_clients_survive_kills_and_restarts_with_exact_streams(tmp_path):
    db = tmp_path / "chaos.db"
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    clients = [ChaosClient(url, "MJ", "gm", 1), ChaosClient(url, "Aengus", "player", 2),
               ChaosClient(url, "Brady", "player", 3),
               ChaosClient(url, "Public", "observer", 4)]

    async def scenario():
        rolling, done = asyncio.Event(), asyncio.Event()
        rolling.set()
        server = serve_on(port, db)
        tasks = [asyncio.create_task(c.run(rolling, done)) for c in clients]
        try:
            for sig in (signal.SIGKILL, signal.SIGKILL, signal.SIGTERM, signal.SIGKILL,
                        signal.SIGTERM):
                await asyncio.sleep(0.8)
                code = await asyncio.to_thread(server.stop_checked, sig)
                if sig == signal.SIGTERM:
                    assert code == 0, "SIGTERM must stop the server cleanly"
                server = await asyncio.to_thread(serve_on, port, db)
            await asyncio.sleep(0.8)
            rolling.clear()
            # let unacknowledged rolls settle and every stream catch up
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                events = await asyncio.to_thread(journal_events, db)
                caught_up = all(
                    c.pending is None and c.last_seq == max(
                        (e["seq"] for e in events if audience(
                            e["mode"], (c.name, c.role),
                            (e["by"]["name"], e["by"]["role"])) is not None), default=0)
                    for c in clients)
                if caught_up:
                    break
                await asyncio.sleep(0.1)
        finally:
            done.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.to_thread(server.stop_checked, signal.SIGTERM)

    run(scenario(), timeout=120)
    events = journal_events(db)
    assert len(events) > 20, "the clients should have rolled a fair amount"
    print(f"{len(events)} events; reconnects {[c.reconnects for c in clients]}; "
          f"streams {[len(c.stream) for c in clients]}")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    journaled_ids = {(e["by"]["name"], e["request_id"]) for e in events}
    for client in clients:
        assert not client.violations, client.violations
        assert client.reconnects >= 6  # first connection + one per restart at least
        expected = [e for e in events if audience(
            e["mode"], (client.name, client.role),
            (e["by"]["name"], e["by"]["role"])) is not None]
        assert [m["seq"] for m in client.stream] == [e["seq"] for e in expected], client.name
        for message, original in zip(client.stream, expected, strict=True):
            view = audience(original["mode"], (client.name, client.role),
                            (original["by"]["name"], original["by"]["role"]))
            if view == HIDDEN:
                assert message["result"] == {"hidden": True} and message["dice"] == []
            else:
                assert message["result"] == original["result"]
                assert message["dice"] == original["dice"]
        for rid in client.acked:
            assert (client.name, rid) in journaled_ids, f"acknowledged {rid} not journaled"
