"""Seats (contract §7): a player's own token, secret rolls kept between a seat and the
GMs, removal and re-keying at once and across restarts, hashes only in the journal."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from urllib.parse import parse_qs, unquote, urlsplit

from websockets.exceptions import ConnectionClosed

from tests.helpers import GM_TOKEN, PLAYER_TOKEN, Peer, run, running_server


async def _gm(server, table="t"):
    gm = await Peer.open(server)
    await gm.join(table, "MJ", "gm")
    return gm


async def _add_seat(gm, name, rid="s1"):
    reply = await gm.request({"type": "seat", "id": rid, "op": "add", "name": name})
    assert reply["type"] == "seat", reply
    return reply


def test_add_gives_token_link_and_qr_once_and_the_seat_joins_with_it():
    async def scenario():
        async with running_server() as server:
            gm = await _gm(server)
            other_gm = await _gm(server)
            reply = await _add_seat(gm, "Alice")
            assert reply["name"] == "Alice" and reply["op"] == "add"
            assert isinstance(reply["seq"], int)
            token = reply["token"]
            link = urlsplit(reply["link"])
            assert parse_qs(link.query) == {"table": ["t"], "name": ["Alice"]}
            assert unquote(link.fragment) == f"token={token}"
            assert reply["qr"].startswith("data:image/svg+xml")
            # The other GM learns of the seat, never its token.
            seen = await other_gm.recv_type("seat")
            assert seen["name"] == "Alice" and "token" not in seen and "link" not in seen
            assert "token_sha256" not in seen
            alice = await Peer.open(server)
            welcome = await alice.join("t", "Alice", token=token)
            assert welcome["seat"] is True
            # History shows the seat event to GMs without token or hash.
            page = await gm.request({"type": "history", "id": "h"})
            [event] = [e for e in page["events"] if e["type"] == "seat"]
            assert "token" not in event and "token_sha256" not in event
    run(scenario())


def test_a_seat_name_takes_its_own_token_only():
    async def scenario():
        async with running_server(max_failed_hellos=100) as server:
            gm = await _gm(server)
            alice_token = (await _add_seat(gm, "Alice", "a"))["token"]
            bob_token = (await _add_seat(gm, "Bob", "b"))["token"]
            for name, token in (("Alice", PLAYER_TOKEN), ("Alice", bob_token),
                                ("Alice", GM_TOKEN), ("Carol", alice_token),
                                ("Alice", "nope")):
                peer = await Peer.open(server)
                await peer.send({"type": "hello", "protocol": 1, "table": "t", "name": name,
                                 "role": "player", "token": token})
                error = await peer.recv()
                assert error["code"] == "forbidden", (name, error)
                try:
                    await peer.recv()
                    raise AssertionError("the connection stays open")
                except ConnectionClosed as closed:
                    assert closed.rcvd.code == 1008
            # A name without a seat still joins with the shared token.
            carol = await Peer.open(server)
            welcome = await carol.join("t", "Carol")
            assert "seat" not in welcome
    run(scenario())


def test_secret_rolls_of_a_seat_never_reach_the_same_name_without_it():
    async def scenario():
        async with running_server(db=str(tmp / "j.db")) as server:
            gm = await _gm(server)
            token = (await _add_seat(gm, "Alice"))["token"]
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token)
            secret = {}
            for mode in ("self", "gm", "blind"):
                secret[mode] = await alice.roll(mode=mode, id=f"secret-{mode}")
                assert secret[mode]["by"] == {"name": "Alice", "role": "player", "seat": True}
            # The seat is removed; a stranger takes the name with the shared token.
            reply = await gm.request({"type": "seat", "id": "rm", "op": "remove",
                                      "name": "Alice"})
            assert reply["removed"] is True
            impostor = await Peer.open(server)
            await impostor.join("t", "Alice", resume=0)
            assert await impostor.quiet() == [] or all(
                m["type"] != "outcome" for m in impostor.seen)
            page = await impostor.request({"type": "history", "id": "h"})
            assert [e for e in page["events"] if e["type"] == "outcome"] == []
            # Re-sending her request id rolls anew for him, never returns her roll.
            again = await impostor.roll(mode="self", id="secret-self")
            assert again["roll"] != secret["self"]["roll"] and "duplicate" not in again
        # After a restart too.
        async with running_server(db=str(tmp / "j.db")) as server:
            impostor = await Peer.open(server)
            await impostor.join("t", "Alice", resume=0)
            page = await impostor.request({"type": "history", "id": "h2"})
            rolls = {e["roll"] for e in page["events"] if e["type"] == "outcome"}
            assert rolls == {again["roll"]}
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        run(scenario())


def test_live_secret_rolls_reach_the_seat_and_gms_only():
    async def scenario():
        async with running_server() as server:
            gm = await _gm(server)
            token = (await _add_seat(gm, "Alice"))["token"]
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token)
            alice2 = await Peer.open(server)  # her phone
            await alice2.join("t", "Alice", token=token)
            bob = await Peer.open(server)
            await bob.join("t", "Bob")
            mine = await alice.roll(mode="self")
            got = await alice2.recv_type("outcome")
            assert got["roll"] == mine["roll"]
            gm_roll = await alice.roll(mode="gm")
            assert (await gm.recv_type("outcome"))["roll"] == gm_roll["roll"]
            assert (await alice2.recv_type("outcome"))["roll"] == gm_roll["roll"]
            public = await alice.roll(mode="public")
            # Bob's first outcome is the public one: nothing secret came before it.
            assert (await bob.recv_type("outcome"))["roll"] == public["roll"]
    run(scenario())


def test_remove_and_rotate_close_connections_and_last_across_restarts(tmp_path):
    db = str(tmp_path / "j.db")
    tokens = {}

    async def scenario():
        async with running_server(db=db) as server:
            gm = await _gm(server)
            alice_token = tokens["alice"] = (await _add_seat(gm, "Alice", "a"))["token"]
            bob_token = (await _add_seat(gm, "Bob", "b"))["token"]
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=alice_token)
            bob = await Peer.open(server)
            await bob.join("t", "Bob", token=bob_token)
            rotated = await gm.request({"type": "seat", "id": "r", "op": "rotate",
                                        "name": "Alice"})
            new_token = rotated["token"]
            assert new_token != alice_token
            await gm.request({"type": "seat", "id": "x", "op": "remove", "name": "Bob"})
            for peer in (alice, bob):
                try:
                    while True:
                        await peer.recv()
                except ConnectionClosed as closed:
                    assert closed.rcvd.code == 1008
            listing = await gm.request({"type": "seat", "id": "l", "op": "list"})
            assert [s["name"] for s in listing["seats"]] == ["Alice"]
        async with running_server(db=db) as server:
            old = await Peer.open(server)
            await old.send({"type": "hello", "protocol": 1, "table": "t", "name": "Alice",
                             "role": "player", "token": alice_token})
            assert (await old.recv())["code"] == "forbidden"
            again = await Peer.open(server)
            assert (await again.join("t", "Alice", token=new_token))["seat"] is True
            # Bob has no seat any more: the shared token takes his name again.
            bob = await Peer.open(server)
            assert "seat" not in await bob.join("t", "Bob")
    run(scenario())
    # Only hashes in the journal.
    with sqlite3.connect(db) as connection:
        text = "\n".join(str(row) for row in connection.execute(
            "SELECT body FROM events UNION ALL SELECT body FROM records"))
    assert tokens["alice"] not in text
    assert hashlib.sha256(tokens["alice"].encode()).hexdigest() in text
    # export: every seat event, with the hash and never the token.
    exported = subprocess.run([sys.executable, "-m", "sidecar.cli.main", "export", "--table", "t",
                               "--db", db], capture_output=True, text=True, check=True).stdout
    seats = [json.loads(line) for line in exported.splitlines()
             if json.loads(line)["type"] == "seat"]
    assert [(e["op"], e["name"]) for e in seats] == [("add", "Alice"), ("add", "Bob"),
                                                     ("rotate", "Alice"), ("remove", "Bob")]
    assert seats[0]["token_sha256"] == hashlib.sha256(tokens["alice"].encode()).hexdigest()
    assert tokens["alice"] not in exported


def test_only_gms_manage_seats_and_bad_requests_are_named():
    async def scenario():
        async with running_server() as server:
            gm = await _gm(server)
            player = await Peer.open(server)
            await player.join("t", "Carol")
            for op in ("add", "list"):
                error = await player.request({"type": "seat", "id": op, "op": op,
                                              "name": "Zed"})
                assert error["code"] == "forbidden"
            await _add_seat(gm, "Alice")
            again = await gm.request({"type": "seat", "id": "2", "op": "add", "name": "Alice"})
            assert again["code"] == "bad_message" and again["details"]["field"] == "name"
            missing = await gm.request({"type": "seat", "id": "3", "op": "remove",
                                        "name": "Nobody"})
            assert missing["code"] == "bad_message"
            bad = await gm.request({"type": "seat", "id": "4", "op": "steal", "name": "A"})
            assert bad["code"] == "bad_message" and bad["details"]["field"] == "op"
            # A repeated id answers the original event and adds no second seat.
            first = await gm.request({"type": "seat", "id": "5", "op": "add", "name": "Dora"})
            repeat = await gm.request({"type": "seat", "id": "5", "op": "add", "name": "Dora"})
            assert repeat["duplicate"] is True and repeat["seq"] == first["seq"]
    run(scenario())


def test_presence_marks_seats():
    async def scenario():
        async with running_server() as server:
            gm = await _gm(server)
            token = (await _add_seat(gm, "Alice"))["token"]
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token)
            while True:
                presence = await gm.recv_type("presence")
                if len(presence["members"]) == 2:
                    break
            assert {"name": "Alice", "role": "player", "seat": True} in presence["members"]
    run(scenario())
