"""Targeted rolls under kill -9 and at once (contract §8): effects are one journal write
with their outcome and the roller's spend.

A real ``sidecar serve`` process (the ``luck`` test ruleset from ``--plugins-dir``) is
killed with SIGKILL while two seats and a GM roll as characters, each roll aimed at
another character (``hit``: wounds or healing, in public, gm and blind modes); clients
reconnect and re-send their unanswered request with the same id. Afterwards every
character's values equal what its events add up to — spends and effects — in the
journal's records and in what the server answers; no request id was resolved twice and
every outcome a client received is in the journal. Then two players hit one NPC at once,
on one server and on two servers sharing one Redis: no wound is lost.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import Peer, run, running_server
from tests.support.plugins import luck_host
from tests.test_character_chaos import (
    CHARACTERS,
    Roller,
    chaos_table,
    kill_under_load,
    request,
    seat_rollers,
    serve,
)
from tests.test_redis_store import luck_servers

pytestmark = pytest.mark.slow  # a server killed and restarted under load


class Hitter(Roller):
    """Rolls as its character at another one, chosen (with ``hit`` and the mode) from the
    request id, so that a re-sent id sends the same roll."""

    def message(self) -> dict:
        choose = random.Random(self.pending)
        target = choose.choice([name for name in CHARACTERS if name != self.character])
        return {"type": "roll", "id": self.pending, "ruleset": "luck",
                "params": {"cost": self.cost, "hit": choose.choice((1, 2, -1, 3))},
                "character": self.character, "targets": [target],
                "mode": choose.choice(("public", "gm", "blind"))}


def fold(db: Path) -> tuple[dict[str, int], dict[str, int], list[str], set[int]]:
    """Each character's luck as its events add up (spends and effects), as its record
    says, the request ids of the rolls and their seqs."""
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
    ids, seqs = [], set()
    last: dict = {}
    notices = 0
    for event in bodies:
        if event["type"] == "sheet" and event.get("op") == "effect":
            # A notice: what the roll just before it showed the owner, nothing new.
            assert event["reason"] == f"#{last['seq']}"
            kept = last["target_sheets"][event["character"]]
            assert event["values"] == kept.get("shown", kept["values"]), event
            notices += 1
        elif event["type"] == "sheet":
            luck[event["character"]] = event["values"]["luck"]
        elif event["type"] == "outcome" and event.get("character"):
            luck[event["character"]] -= event["spent"].get("luck", 0)
            assert luck[event["character"]] == event["sheet"]["luck"]
            for name, delta in event.get("effects", {}).items():
                luck[name] += delta.get("luck", 0)
                assert 0 <= luck[name] <= 5
                assert event["target_sheets"][name]["values"]["luck"] == luck[name]
            ids.append(event["request_id"])
            seqs.add(event["seq"])
            last = event
    assert notices, "no owner was told of a roll hidden from them"
    return luck, records, ids, seqs


def test_targeted_rolls_survive_kill_9_exactly_once(tmp_path):
    plugins, db, port, url, gm = chaos_table(tmp_path)

    async def scenario():
        server = serve(port, db, plugins)
        rollers = await seat_rollers(url, gm, Hitter)
        server = await kill_under_load(server, rollers, port, db, plugins)
        # A request id re-sent after the restart answers the original, applies nothing.
        roller = rollers[0]
        rid, original = next((rid, reply) for rid, reply in roller.answered.items()
                             if reply["type"] == "outcome")
        before = await request(url, gm, {"type": "sheet", "id": "l1", "op": "list"})
        roller.pending = rid
        again = await request(url, roller.member, roller.message())
        assert again["duplicate"] is True and again["seq"] == original["seq"]
        after = await request(url, gm, {"type": "sheet", "id": "l2", "op": "list"})
        assert after["characters"] == before["characters"]
        server.stop_checked(signal.SIGKILL)
        replies = [reply for r in rollers for reply in r.answered.values()
                   if reply["type"] == "outcome"]
        return {c["character"]: c["values"]["luck"] for c in after["characters"]}, replies

    served, answered_replies = run(scenario(), timeout=180)
    answered = {reply["seq"] for reply in answered_replies}
    luck, records, ids, seqs = fold(db)
    assert luck == records == served
    assert len(ids) == len(set(ids)), "a request id was resolved twice"
    assert answered <= seqs, "an outcome a client received is not in the journal"
    assert len(ids) >= 90
    hits = [reply for reply in answered_replies if reply.get("effects")]
    assert len(hits) >= 30, "the rolls changed their targets"


async def _hit_at_once(first: Peer, second: Peer, count: int) -> None:
    """Each peer hits the NPC ``count`` times, all sent at once (not awaited one by one)."""
    async def burst(peer: Peer, character: str) -> list[dict]:
        ids = [f"{character}-{n}" for n in range(count)]
        for rid in ids:
            await peer.send({"type": "roll", "id": rid, "ruleset": "luck",
                             "params": {"cost": 0, "hit": -1}, "character": character,
                             "targets": ["Gobelin"]})
        replies: dict[str, dict] = {}
        while len(replies) < count:
            message = await peer.recv()
            if message.get("id") in ids:
                replies[message["id"]] = message
        return list(replies.values())
    results = await asyncio.gather(burst(first, "Ysolde"), burst(second, "Brady"))
    for replies in results:
        assert all(r["type"] == "outcome" and r["effects"] == {"Gobelin": {"luck": 1}}
                   for r in replies), replies


async def _npc_table(gm: Peer, other_gm: Peer | None = None) -> tuple[str, str]:
    """Alice plays Ysolde, Bob Brady; the GM's NPC Gobelin has a wound track of 0 to 200
    (``luck`` healed by ``hit: -1``, one point a roll)."""
    tokens = []
    for name in ("Alice", "Bob"):
        tokens.append((await gm.request({"type": "seat", "id": f"s{name}", "op": "add",
                                         "name": name}))["token"])
    for character, owner in (("Ysolde", "Alice"), ("Brady", "Bob"), ("Gobelin", None)):
        made = await gm.request({"type": "sheet", "id": f"c{character}", "op": "set",
                                 "character": character, "ruleset": "luck", "owner": owner,
                                 "values": {"luck": 0}})
        assert made["type"] == "sheet", made
    return tokens[0], tokens[1]


def test_two_players_hitting_one_npc_at_once_never_lose_a_wound():
    """Luck's max is 5: each hit heals one point (``hit: -1``) — 2 × 2 rolls, at once,
    from 0: exactly 4, every outcome naming +1 (a lost update would leave 3 or less)."""
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            alice_token, bob_token = await _npc_table(gm)
            alice, bob = await Peer.open(server), await Peer.open(server)
            await alice.join("t", "Alice", token=alice_token)
            await bob.join("t", "Bob", token=bob_token)
            await _hit_at_once(alice, bob, 2)
            listed = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            luck = {c["character"]: c["values"]["luck"] for c in listed["characters"]}
            assert luck["Gobelin"] == 4
    run(scenario())


def test_two_players_on_two_servers_hitting_one_npc_never_lose_a_wound(redis_server):
    async def scenario():
        async with luck_servers(redis_server.url) as (a, b):
            gm = await Peer.open(a)
            await gm.join("t", "MJ", "gm")
            alice_token, bob_token = await _npc_table(gm)
            alice, bob = await Peer.open(a), await Peer.open(b)
            await alice.join("t", "Alice", token=alice_token)
            await bob.join("t", "Bob", token=bob_token)
            await _hit_at_once(alice, bob, 2)
            # Secret hits on Alice's Ysolde from both servers at once: each is followed by
            # its notice to Alice, built again when the other server wrote first.
            hits = await asyncio.gather(*(
                peer.roll("luck", {"cost": 0, "hit": -1}, character=character,
                          targets=["Ysolde"], mode="gm")
                for peer, character in ((gm, "Gobelin"), (bob, "Brady"))))
            assert all(hit["effects"] == {"Ysolde": {"luck": 1}} for hit in hits), hits
            told = [await alice.recv_type("sheet") for _ in hits]
            assert sorted(notice["reason"] for notice in told) == sorted(
                f"#{hit['seq']}" for hit in hits)
            assert max(notice["values"]["luck"] for notice in told) == 2
            for server in (a, b):
                peer = await Peer.open(server)
                await peer.join("t", "MJ2", "gm")
                listed = await peer.request({"type": "sheet", "id": "l", "op": "list"})
                luck = {c["character"]: c["values"]["luck"] for c in listed["characters"]}
                assert luck["Gobelin"] == 4 and luck["Ysolde"] == 2
    run(scenario(), timeout=90)
