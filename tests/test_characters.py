"""Characters (contract §7): sheets set by GMs as journaled events, rolls as a character
that spend in the same write as their outcome, ``insufficient``, visibility of sheet
changes, and values that always equal what their events add up to."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.host.plugins import default_host
from tests.helpers import Peer, run, running_server
from tests.support.plugins import luck_host


async def _table(server):
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    token = (await gm.request({"type": "seat", "id": "s", "op": "add", "name": "Alice"}))["token"]
    alice = await Peer.open(server)
    await alice.join("t", "Alice", token=token)
    return gm, alice, token


async def _set(gm, rid="c", **fields):
    message = {"type": "sheet", "id": rid, "op": "set", "character": "Ysolde",
               "ruleset": "luck", "owner": "Alice", "values": {}, **fields}
    return await gm.request(message)


def test_welcome_describes_each_rulesets_sheet():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm = await Peer.open(server)
            welcome = await gm.join("t", "MJ", "gm")
            sheets = {r["name"]: r["sheet"] for r in welcome["rulesets"]}
            assert sheets["luck"]["luck"]["resource"] is True
            assert welcome["characters"] == []
    run(scenario())


def test_set_creates_with_defaults_changes_given_fields_and_is_journaled():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, _ = await _table(server)
            made = await _set(gm, values={"skill": 4}, reason="création")
            assert made["type"] == "sheet" and made["op"] == "set"
            assert made["values"] == {"luck": 3, "focus": 1, "skill": 4, "notes": "",
                                      "skills": {}}
            assert made["owner"] == "Alice" and made["reason"] == "création"
            assert made["by"] == {"name": "MJ", "role": "gm"}
            # The owner sees the event; a player without a seat does not.
            assert (await alice.recv_type("sheet"))["seq"] == made["seq"]
            changed = await _set(gm, "c2", values={"luck": 1})
            assert changed["values"]["skill"] == 4 and changed["values"]["luck"] == 1
            assert changed["changed"] == {"luck": [3, 1]}
            listing = await alice.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["luck"] == 1
            bad = await _set(gm, "c3", values={"luck": 9})
            assert bad["code"] == "invalid_params"
            assert bad["details"]["param"] == "values.luck"
            unknown = await _set(gm, "c4", values={"charisma": 1})
            assert unknown["code"] == "invalid_params"
            no_seat = await _set(gm, "c5", owner="Nobody")
            assert no_seat["code"] == "invalid_params"
            player = await alice.request({"type": "sheet", "id": "p", "op": "set",
                                          "character": "X", "ruleset": "luck", "values": {}})
            assert player["code"] == "forbidden"
    run(scenario())


def test_rolling_as_a_character_spends_in_the_outcome_and_insufficient_spends_nothing():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, _ = await _table(server)
            await _set(gm, values={"luck": 2, "skill": 3})
            seq = (await gm.request({"type": "history", "id": "h"}))["next"]
            out = await alice.roll("luck", {"cost": 2}, character="Ysolde", dice=None)
            assert out["type"] == "outcome", out
            assert out["character"] == "Ysolde"
            assert out["spent"] == {"luck": 2} and out["sheet"]["luck"] == 0
            assert out["result"]["total"] - out["dice"][0]["face"] == 3  # skill from sheet
            gm_copy = await gm.recv_type("outcome")
            assert gm_copy["sheet"]["luck"] == 0
            short = await alice.roll("luck", {"cost": 1}, character="Ysolde")
            assert short["code"] == "insufficient"
            assert short["details"] == {"field": "luck", "have": 0, "need": 1}
            # Nothing rolled, no seq used: the next event follows at once.
            assert (await alice.roll("luck", {"cost": -1}, character="Ysolde"))["seq"] == \
                out["seq"] + 1
            assert out["seq"] == seq + 1
    run(scenario())


def test_who_may_roll_which_character():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, _ = await _table(server)
            await _set(gm)
            await _set(gm, "npc", character="Gobelin", owner=None)
            carol = await Peer.open(server)
            await carol.join("t", "Carol")
            assert (await carol.roll("luck", {}, character="Ysolde"))["code"] == "forbidden"
            assert (await alice.roll("luck", {}, character="Gobelin"))["code"] == "forbidden"
            # Nobody has that name: the same answer as another's character (issue 25).
            assert (await alice.roll("luck", {}, character="Nobody"))["code"] == "forbidden"
            assert (await gm.roll("luck", {}, character="Nobody"))["code"] == "invalid_params"
            assert (await alice.roll("bloodlust", {"pool": 2}, character="Ysolde"))[
                "code"] == "invalid_params"
            gm_roll = await gm.roll("luck", {"cost": 0}, character="Ysolde")
            assert gm_roll["type"] == "outcome"
            odds = await alice.request({"type": "odds", "id": "o", "ruleset": "luck",
                                        "params": {"target": 6}, "character": "Ysolde"})
            assert odds["p_success"] == pytest.approx(3 / 6)  # skill 2 from the sheet
    run(scenario())


def test_blind_roll_hides_spend_from_its_roller():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, _ = await _table(server)
            await _set(gm)
            out = await alice.roll("luck", {}, character="Ysolde", mode="blind")
            assert out["result"] == {"hidden": True}
            assert "spent" not in out and "sheet" not in out
            full = await gm.recv_type("outcome")
            assert full["spent"] == {"luck": 1}
            # Her sheet still shows what she last saw, the GM's the truth.
            mine = await alice.request({"type": "sheet", "id": "l", "op": "list"})
            assert mine["characters"][0]["values"]["luck"] == 3
            theirs = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert theirs["characters"][0]["values"]["luck"] == 2
            # A roll she sees whole shows the values whole again.
            seen = await alice.roll("luck", {"cost": 0}, character="Ysolde")
            assert seen["sheet"]["luck"] == 2
            mine = await alice.request({"type": "sheet", "id": "l2", "op": "list"})
            assert mine["characters"][0]["values"]["luck"] == 2
    run(scenario())


def test_adjust_refill_remove_and_a_repeated_id_never_spends_twice(tmp_path):
    db = str(tmp_path / "j.db")

    async def scenario():
        async with running_server(host=luck_host(), db=db) as server:
            gm, alice, _ = await _table(server)
            await _set(gm, values={"luck": 3})
            given = await gm.request({"type": "sheet", "id": "g", "op": "adjust",
                                      "character": "Ysolde", "delta": {"luck": 2},
                                      "reason": "bonus"})
            assert given["values"]["luck"] == 5 and given["changed"] == {"luck": [3, 5]}
            too_much = await gm.request({"type": "sheet", "id": "g2", "op": "adjust",
                                         "character": "Ysolde", "delta": {"luck": 1}})
            assert too_much["code"] == "insufficient"
            out = await alice.roll("luck", {"cost": 1}, character="Ysolde", id="once",
                                   mode="gm")
            assert out["sheet"]["luck"] == 4
            focus = await alice.roll("luck", {"cost": 0}, character="Ysolde")
            assert focus["type"] == "outcome"
            await gm.request({"type": "sheet", "id": "f", "op": "set", "character": "Ysolde",
                              "ruleset": "luck", "values": {"focus": 0}})
            turn = await gm.request({"type": "sheet", "id": "t", "op": "refill",
                                     "what": "turn"})
            assert turn["type"] == "sheets"
            assert turn["characters"][0]["values"]["focus"] == 1
        async with running_server(host=luck_host(), db=db) as server:
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token_box[0])
            repeat = await alice.roll("luck", {"cost": 1}, character="Ysolde", id="once",
                                      mode="gm")
            assert repeat["duplicate"] is True and repeat["seq"] == out["seq"]
            listing = await alice.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["luck"] == 4
            # Values equal what the events add up to.
            page = await alice.request({"type": "history", "id": "h", "limit": 500})
            events = page["events"]
            luck = None
            for event in events:
                if event["type"] == "sheet":
                    luck = event["values"]["luck"]
                elif event.get("character") == "Ysolde" and "spent" in event:
                    luck -= event["spent"].get("luck", 0)
                    assert luck == event["sheet"]["luck"]
            assert luck == 4
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            gone = await gm.request({"type": "sheet", "id": "rm", "op": "remove",
                                     "character": "Ysolde", "reason": "mort"})
            assert gone["removed"] is True
            # Removed: no longer hers, the same answer as any name not hers (issue 25).
            assert (await alice.roll("luck", {}, character="Ysolde"))["code"] == "forbidden"

    token_box = []
    original = _table

    async def remembering(server):
        gm, alice, token = await original(server)
        token_box.append(token)
        return gm, alice, token
    globals()["_table"] = remembering
    try:
        run(scenario())
    finally:
        globals()["_table"] = original


def test_an_unusable_sheet_description_fails_at_start_naming_plugin_and_field(tmp_path):
    from sidecar.host.plugins import PluginLoadError
    from tests.support.plugins import write_plugins

    source = (Path(__file__).parent / "sheet_plugin.py").read_text().replace(
        '"luck": {"type": "int", "min": 0, "max": 5, "default": 3, "resource": True,',
        '"luck": {"type": "string", "default": "x", "resource": True,')
    directory = write_plugins(tmp_path / "p", badsheet=source)
    with pytest.raises(PluginLoadError, match="badsheet.*'luck', key 'resource': only an int"):
        default_host(directory)
