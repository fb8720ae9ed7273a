"""Open rolls (contract §7): decide after seeing the dice — choices, ``react``, the
default taken when time runs out, visibility, and open rolls that survive a restart."""

from __future__ import annotations

import asyncio

from tests.helpers import Peer, run, running_server
from tests.support.plugins import ALWAYS_OPEN, luck_host


def _server(**overrides):
    return running_server(host=luck_host(), **overrides)


FAIL = ALWAYS_OPEN


async def _open_roll(peer, mode="public", **params):
    out = await peer.roll("luck", {**FAIL, **params}, dice=[2], mode=mode)
    assert out["type"] == "outcome", out
    return out


def test_a_failed_roll_offers_choices_and_react_decides_with_a_new_event():
    async def scenario():
        async with _server() as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            player = await Peer.open(server)
            await player.join("t", "Aengus", token=None)
            out = await _open_roll(gm)
            assert out["open"] is True and out["default"] == "keep"
            assert [c["name"] for c in out["choices"]] == ["reroll", "keep"]
            assert out["expires"] > 0
            seen = await player.recv_type("outcome")
            assert seen["open"] is True and seen["roll"] == out["roll"]
            decided = await gm.request({"type": "react", "id": "d1", "roll": out["roll"],
                                        "choice": "reroll", "dice": [6]})
            assert decided["type"] == "outcome", decided
            assert decided["roll"] == out["roll"] and decided["reacts_to"] == out["seq"]
            assert decided["seq"] == out["seq"] + 1 and "open" not in decided
            assert decided["choice"] == "reroll"
            assert decided["reacted_by"] == {"name": "MJ", "role": "gm"}
            assert decided["result"]["total"] == 6
            assert (await player.recv_type("outcome"))["reacts_to"] == out["seq"]
            # Decided once: the roll is closed now.
            again = await gm.request({"type": "react", "id": "d2", "roll": out["roll"],
                                      "choice": "keep"})
            assert again["code"] == "bad_message" and again["details"]["field"] == "roll"
    run(scenario())


def test_bad_reactions_are_refused_and_change_nothing():
    async def scenario():
        async with _server() as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            alice = await Peer.open(server)
            await alice.join("t", "Alice")
            bob = await Peer.open(server)
            await bob.join("t", "Bob")
            out = await _open_roll(gm)  # (a GM may give the dice)
            mine = await alice.roll("luck", FAIL, mode="public")
            while mine.get("result", {}).get("success") is not False:
                mine = await alice.roll("luck", FAIL, mode="public")
            cases = [
                (bob, {"roll": mine["roll"], "choice": "keep"}, "forbidden"),
                (alice, {"roll": "nope", "choice": "keep"}, "bad_message"),
                (alice, {"roll": mine["roll"], "choice": "fly"}, "bad_message"),
                (alice, {"roll": mine["roll"], "choice": "reroll", "dice": [3]}, "forbidden"),
                (gm, {"roll": out["roll"], "choice": "reroll", "dice": [3, 4]}, "bad_dice"),
                (gm, {"roll": out["roll"], "choice": "reroll", "dice": [9]}, "bad_dice"),
            ]
            for peer, fields, code in cases:
                error = await peer.request({"type": "react", "id": "x", **fields})
                assert error["code"] == code, (fields, error)
            decided = await alice.request({"type": "react", "id": "ok", "roll": mine["roll"],
                                           "choice": "keep"})
            assert decided["reacts_to"] == mine["seq"]
            # Nothing refused used a seq.
            assert decided["seq"] == mine["seq"] + 1
    run(scenario())


def test_a_blind_roll_is_decided_by_a_gm_and_its_roller_is_told_nothing_of_it():
    async def scenario():
        async with _server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            alice = await Peer.open(server)
            await alice.join("t", "Alice")
            bob = await Peer.open(server)
            await bob.join("t", "Bob")
            out = await _open_roll(alice, mode="blind")
            assert "open" not in out and "choices" not in out and "expires" not in out
            assert out["result"] == {"hidden": True}
            full = await gm.recv_type("outcome")
            assert full["choices"]
            # The roller may not decide it: answered as for a roll that is not open.
            mine = await alice.request({"type": "react", "id": "a", "roll": out["roll"],
                                        "choice": "keep"})
            assert mine["code"] == "bad_message" and mine["details"]["field"] == "roll"
            decided = await gm.request({"type": "react", "id": "g", "roll": out["roll"],
                                        "choice": "reroll", "dice": [1]})
            assert decided["choice"] == "reroll" and decided["reacts_to"] == out["seq"]
            assert await alice.quiet() == [] and await bob.quiet() == []
    run(scenario())


def test_time_runs_out_default_taken_or_closed_as_it_stands():
    async def scenario():
        async with _server(react_timeout=0.2) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            out = await _open_roll(gm)
            decided = await gm.recv_type("outcome", timeout=5)
            assert decided["reacts_to"] == out["seq"] and decided["choice"] == "keep"
            assert decided["reacted_by"] is None
            closing = await _open_roll(gm, no_default=True)
            closed = await gm.recv_type("outcome", timeout=5)
            assert closed["reacts_to"] == closing["seq"] and closed["choice"] is None
            assert closed["result"] == closing["result"] and "open" not in closed
    run(scenario())


def test_open_rolls_survive_a_restart_and_their_time_keeps_running(tmp_path):
    db = str(tmp_path / "j.db")

    async def scenario():
        async with _server(db=db, react_timeout=3600) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            kept = await _open_roll(gm)
            late = await _open_roll(gm)
        async with _server(db=db, react_timeout=3600) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm", resume=0)
            decided = await gm.request({"type": "react", "id": "after", "roll": kept["roll"],
                                        "choice": "reroll", "dice": [5]})
            assert decided["reacts_to"] == kept["seq"]
            assert decided["result"]["total"] == 5
            await gm.close()
        # The other one's time ran out while no server was up: taken when one starts.
        import json
        import sqlite3
        with sqlite3.connect(db) as connection:
            body = json.loads(connection.execute(
                "SELECT body FROM records WHERE kind = 'open'").fetchone()[0])
            body["expires"] = 0
            connection.execute("UPDATE records SET body = ? WHERE kind = 'open'",
                               (json.dumps(body),))
        async with _server(db=db, react_timeout=3600) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            page = await gm.request({"type": "history", "id": "h", "after": late["seq"]})
            while not any(e.get("reacts_to") == late["seq"] for e in page["events"]):
                await asyncio.sleep(0.05)
                page = await gm.request({"type": "history", "id": "h", "after": late["seq"]})
            [event] = [e for e in page["events"] if e.get("reacts_to") == late["seq"]]
            assert event["choice"] == "keep"
    run(scenario())


def test_a_reaction_spends_from_the_sheet_and_a_repeated_id_decides_once():
    async def scenario():
        async with _server() as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            token = (await gm.request({"type": "seat", "id": "s", "op": "add",
                                       "name": "Alice"}))["token"]
            await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Ysolde",
                              "ruleset": "luck", "owner": "Alice",
                              "values": {"luck": 3, "skill": 0}})
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token)
            out = await alice.roll("luck", {**FAIL, "cost": 0}, character="Ysolde")
            assert out["open"] is True
            decided = await alice.request({"type": "react", "id": "r1", "roll": out["roll"],
                                           "choice": "reroll"})
            assert decided["spent"] == {"luck": 1} and decided["sheet"]["luck"] == 2
            repeat = await alice.request({"type": "react", "id": "r1", "roll": out["roll"],
                                          "choice": "reroll"})
            assert repeat["duplicate"] is True and repeat["seq"] == decided["seq"]
            listing = await alice.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["luck"] == 2
    run(scenario())


def test_a_decision_sent_from_two_devices_is_taken_once_and_repeated_to_the_second():
    """The same react (same id) from two devices of the roller, the second waiting for the
    table's turn behind the first: the second is answered with the first's outcome,
    marked ``duplicate`` — not refused because the roll is no longer open (every change
    goes through the one runner, which looks for a repeat again once it has the turn)."""
    async def scenario():
        async with _server() as server:
            phone = await Peer.open(server)
            await phone.join("t", "MJ", "gm")
            laptop = await Peer.open(server)
            await laptop.join("t", "MJ", "gm")
            out = await _open_roll(phone)
            await laptop.recv_type("outcome")
            react = {"type": "react", "id": "d1", "roll": out["roll"], "choice": "keep"}
            turn = server.tables.get("t").turn
            await turn.acquire()  # the table is busy (another event being journaled)
            try:
                await phone.send(react)
                await _until(lambda: len(turn._waiters or ()) == 1, "the first waits")
                await laptop.send(react)
                await _until(lambda: len(turn._waiters or ()) == 2, "the second waits")
            finally:
                turn.release()
            first = await _answer(phone, "d1")
            second = await _answer(laptop, "d1")
            assert first["type"] == "outcome" and first["reacts_to"] == out["seq"], first
            assert second["type"] == "outcome", second
            assert second["duplicate"] is True and second["seq"] == first["seq"]
            page = await phone.request({"type": "history", "id": "h", "after": out["seq"]})
            assert [e["seq"] for e in page["events"]] == [first["seq"]]
    run(scenario())


async def _answer(peer, rid):
    while True:
        message = await peer.recv()
        if message.get("id") == rid:
            return message


async def _until(predicate, what: str, rounds: int = 500) -> None:
    """Wait (bounded) for a state of the in-process server."""
    for _ in range(rounds):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")
