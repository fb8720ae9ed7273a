"""Targets (contract §8) against a real server: a roll aimed at characters reads copies of
their sheets and changes them in the outcome's own journal write, effects clamped and
never refused, a hidden target's values never sent to the roller, the owner told by a
``sheet`` ``effect`` event when the mode hides the roll, repeats applied once, one open
roll per character, and who acted this turn for the GMs.

The ``luck`` test ruleset (tests/sheet_plugin.py): ``hit`` takes that much ``luck`` from
every target; the result's ``seen`` shows the targets' luck as the hook read it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers import Peer, run, running_server
from tests.support.plugins import luck_host

#: Written in the GM's NPC's and in Ysolde's notes: no frame to someone who may not see
#: their sheets may hold it.
NPC_SECRET = "gobelin-secret-notes"
YSOLDE_SECRET = "ysolde-secret-notes"


async def table(server: Any) -> tuple[Peer, Peer, Peer]:
    """A GM, Alice (plays Ysolde) and Bob (plays Brady); the GM's NPC Gobelin."""
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    seats = {}
    for name in ("Alice", "Bob"):
        seats[name] = (await gm.request({"type": "seat", "id": f"s{name}", "op": "add",
                                         "name": name}))["token"]
    for character, owner, notes in (("Ysolde", "Alice", YSOLDE_SECRET),
                                    ("Brady", "Bob", "brady"),
                                    ("Gobelin", None, NPC_SECRET)):
        made = await gm.request({"type": "sheet", "id": f"c{character}", "op": "set",
                                 "character": character, "ruleset": "luck", "owner": owner,
                                 "values": {"notes": notes, "skill": 3}})
        assert made["type"] == "sheet", made
    alice, bob = await Peer.open(server), await Peer.open(server)
    await alice.join("t", "Alice", token=seats["Alice"])
    await bob.join("t", "Bob", token=seats["Bob"])
    bob.token = seats["Bob"]  # (to join again, resuming)
    return gm, alice, bob


async def values(gm: Peer, name: str) -> dict[str, Any]:
    listed = await gm.request({"type": "sheet", "id": "list", "op": "list"})
    return next(c for c in listed["characters"] if c["character"] == name)["values"]


def test_targets_are_checked_before_any_die():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            for targets in ("Gobelin", [1], ["a"] * 9, ["Gobelin", "Gobelin"], [""]):
                reply = await alice.roll("luck", {}, character="Ysolde", targets=targets)
                assert reply["code"] == "bad_message", (targets, reply)
                assert reply["details"]["field"] == "targets"
            unknown = await alice.roll("luck", {}, character="Ysolde", targets=["Nobody"])
            assert unknown["code"] == "invalid_params"
            assert unknown["details"]["field"] == "targets"
            assert unknown["message"].startswith("pas de personnage")  # French first
            own = await alice.roll("luck", {}, character="Ysolde", targets=["Ysolde"])
            assert own["code"] == "invalid_params" and own["details"]["field"] == "targets"
            hidden = await gm.roll("luck", {}, targets=["Gobelin"], mode="self")
            assert hidden["code"] == "invalid_params" and hidden["details"]["field"] == "mode"
            odds = await bob.request({"type": "odds", "id": "o", "ruleset": "luck",
                                      "params": {}, "targets": ["Nobody"]})
            assert odds["code"] == "invalid_params" and odds["details"]["field"] == "targets"
            ask = await gm.request({"type": "ask", "id": "a", "op": "open", "to": ["Alice"],
                                    "ruleset": "luck", "params": {}, "targets": ["Nobody"]})
            assert ask["code"] == "invalid_params" and ask["details"]["field"] == "targets"
            # Nothing was rolled: the next event is the next seq.
            assert (await gm.roll("luck", {}))["seq"] == 6
    run(scenario())


def test_hooks_see_copies_and_effects_are_clamped_never_refused():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            # A player names the GM's NPC (owned by no seat): it is a target like any other.
            hit = await alice.roll("luck", {"hit": 5, "cost": 0}, character="Ysolde",
                                   targets=["Gobelin"])
            assert hit["type"] == "outcome", hit
            assert hit["targets"] == ["Gobelin"]
            assert hit["result"]["seen"] == {"Gobelin": 3}  # the values before
            assert hit["effects"] == {"Gobelin": {"luck": -3}}  # 5 asked, 3 held: min 0
            assert "target_sheets" not in hit  # the roller does not own Gobelin
            assert (await values(gm, "Gobelin"))["luck"] == 0
            # Past the max: taken as far as it goes (luck max 5).
            healed = await gm.roll("luck", {"hit": -20}, targets=["Gobelin", "Brady"])
            assert healed["effects"] == {"Gobelin": {"luck": 5}, "Brady": {"luck": 2}}
            assert healed["target_sheets"]["Gobelin"]["luck"] == 5
            assert healed["target_sheets"]["Brady"]["luck"] == 5
            # Bob owns Brady: he sees Brady's new values on the outcome, not Gobelin's.
            seen = await seq_of(bob, healed["seq"])
            assert set(seen["target_sheets"]) == {"Brady"}
            # The hooks get copies: writing into them changes no sheet (a guarded plugin
            # that does is failing, as when it writes into roll.sheet).
            mutated = await gm.roll("luck", {"bad_effect": "mutate"}, targets=["Brady"])
            assert mutated["code"] == "plugin_error"
            assert (await values(gm, "Brady"))["luck"] == 5
            # A roll without targets carries none of it.
            plain = await gm.roll("luck", {})
            assert not {"targets", "effects", "target_sheets"} & set(plain)
            # A GM's odds read the NPC (a player's do not: tests/test_targets_secrecy.py).
            odds = await gm.request({"type": "odds", "id": "o", "ruleset": "luck",
                                     "params": {"skill": 0}, "targets": ["Gobelin"]})
            assert odds["p_success"] == pytest.approx(2 / 6)  # target: skill 3 + 2
    run(scenario())


@pytest.mark.parametrize("bad", ["stranger", "field", "amount"])
def test_a_wrong_effect_is_the_plugins_error_and_stores_nothing(bad):
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            before = await values(gm, "Gobelin")
            reply = await alice.roll("luck", {"bad_effect": bad}, character="Ysolde",
                                     targets=["Gobelin"])
            assert reply["code"] == "plugin_error", reply
            assert await values(gm, "Gobelin") == before
            assert (await values(gm, "Ysolde"))["luck"] == 3  # its spend not taken either
    run(scenario())


def test_a_repeated_request_applies_its_effects_once():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            first = await bob.roll("luck", {"hit": 1, "cost": 0}, character="Brady",
                                   targets=["Gobelin"], id="same")
            again = await bob.roll("luck", {"hit": 1, "cost": 0}, character="Brady",
                                   targets=["Gobelin"], id="same")
            assert again["duplicate"] is True and again["seq"] == first["seq"]
            assert (await values(gm, "Gobelin"))["luck"] == 2
    run(scenario())


async def seq_of(peer: Peer, seq: int) -> dict[str, Any]:
    """The message of event ``seq`` the peer gets (earlier ones skipped)."""
    while True:
        message = await peer.recv_not_presence()
        if message.get("seq") == seq:
            return message


def _holds(frames: list[dict[str, Any]], secret: str) -> list[dict[str, Any]]:
    return [frame for frame in frames if secret in json.dumps(frame, default=str)]


@pytest.mark.parametrize("mode", ["public", "gm", "blind"])
def test_a_hidden_targets_values_never_reach_the_roller(mode):
    """Bob hits Ysolde (Alice's) and the GM's NPC: no frame Bob gets — live, history,
    resume — holds their sheets; Alice sees Ysolde's new values, by the outcome or, when
    the mode hides the roll from her, by a ``sheet`` ``effect`` event naming its seq."""
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            hit = await bob.roll("luck", {"hit": 1, "cost": 0}, character="Brady",
                                 targets=["Ysolde", "Gobelin"], mode=mode)
            assert hit["type"] == "outcome", hit
            if mode == "blind":
                assert hit["result"] == {"hidden": True} and "effects" not in hit
            else:
                assert hit["effects"] == {"Ysolde": {"luck": -1}, "Gobelin": {"luck": -1}}
            assert "target_sheets" not in hit
            gm_copy = await seq_of(gm, hit["seq"])
            assert gm_copy["target_sheets"]["Ysolde"]["luck"] == 2
            assert gm_copy["target_sheets"]["Gobelin"]["notes"] == NPC_SECRET
            if mode == "public":
                told = await seq_of(alice, hit["seq"])
                assert told["target_sheets"] == {"Ysolde": gm_copy["target_sheets"]["Ysolde"]}
            else:
                told = await seq_of(alice, hit["seq"] + 1)
                assert told["op"] == "effect" and told["reason"] == f"#{hit['seq']}"
                assert told["character"] == "Ysolde" and told["values"]["luck"] == 2
                assert told["seq"] == hit["seq"] + 1
                assert not [f for f in alice.seen if f["type"] == "outcome"
                            and f["seq"] == hit["seq"]]
            history = await bob.request({"type": "history", "id": "h", "after": 0})
            alice_history = await alice.request({"type": "history", "id": "h", "after": 0})
            kinds = [(e["type"], e.get("op")) for e in alice_history["events"]]
            assert (("sheet", "effect") in kinds) == (mode != "public")
            assert any(e.get("target_sheets", {}).get("Ysolde") for e in
                       alice_history["events"]) == (mode == "public")
            assert history["events"]
            # A resume replays the same: Bob reconnects from the start.
            again = await Peer.open(server)
            await again.join("t", "Bob", token=bob.token, resume=0)
            replayed = await again.unseen()
            assert [e["seq"] for e in replayed if e["type"] == "outcome"] == [hit["seq"]]
            for frames in (bob.seen, again.seen):
                assert not _holds(frames, YSOLDE_SECRET), mode
                assert not _holds(frames, NPC_SECRET), mode
                assert not [f for f in frames if "target_sheets" in f]
            assert not _holds(alice.seen, NPC_SECRET)
    run(scenario())


def test_one_open_roll_per_character_and_effects_apply_when_decided():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            opened = await gm.roll("luck", {"target": 12, "second_chance": True, "hit": 1,
                                            "cost": 0}, character="Brady",
                                   targets=["Gobelin"], dice=[1])
            assert opened["open"] is True
            assert opened["effects"] == {"Gobelin": {"luck": -1}}
            again = await gm.roll("luck", {}, character="Brady")
            assert again["code"] == "invalid_params"
            assert again["details"] == {"param": "character", "field": "character",
                                        "open": opened["seq"]}
            # Targets are not locked: another roll may hit Gobelin meanwhile.
            other = await alice.roll("luck", {"hit": 1, "cost": 0}, character="Ysolde",
                                     targets=["Gobelin"])
            assert other["effects"] == {"Gobelin": {"luck": -1}}
            decided = await gm.request({"type": "react", "id": "d", "roll": opened["roll"],
                                        "choice": "reroll", "dice": [1]})
            assert decided["effects"] == {"Gobelin": {"luck": -1}}
            assert decided["target_sheets"]["Gobelin"]["luck"] == 0  # 3 - 1 - 1 - 1
            assert (await gm.roll("luck", {}, character="Brady"))["type"] == "outcome"
    run(scenario())


def test_the_gms_see_who_acted_this_turn():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            await alice.roll("luck", {}, character="Ysolde")
            listed = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            acted = {c["character"]: c.get("acted", False) for c in listed["characters"]}
            assert acted == {"Ysolde": True, "Brady": False, "Gobelin": False}
            mine = await alice.request({"type": "sheet", "id": "l", "op": "list"})
            assert "acted" not in mine["characters"][0]
            order = await gm.request({"type": "initiative", "id": "i",
                                      "characters": ["Ysolde", "Brady"]})
            assert order["acted"] == ["Ysolde"]
            seen = await alice.recv_type("initiative")
            assert "acted" not in seen
            # A second roll is never refused; a new turn starts every character afresh.
            assert (await alice.roll("luck", {}, character="Ysolde"))["type"] == "outcome"
            await gm.request({"type": "sheet", "id": "t", "op": "refill", "what": "turn"})
            listed = await gm.request({"type": "sheet", "id": "l2", "op": "list"})
            assert not any(c.get("acted") for c in listed["characters"])
            welcome = await (await Peer.open(server)).join("t", "MJ2", "gm")
            assert not any(c.get("acted") for c in welcome["characters"])
    run(scenario())


def test_an_export_with_effects_verifies_and_a_forged_effect_is_caught(tmp_path):
    """``sidecar verify`` re-runs targeted rolls with the server's plugins: the effects
    (clamped), the values they leave and the notices agree; a forged effect fails."""
    from tests.test_verify import ROOT, _export, _verify
    db = str(tmp_path / "journal.db")

    async def scenario():
        async with running_server(host=luck_host(), db=db, dice="provable") as server:
            gm, alice, bob = await table(server)
            await bob.roll("luck", {"hit": 2}, character="Brady", targets=["Gobelin"])
            await bob.roll("luck", {"hit": 9}, character="Brady", targets=["Ysolde"],
                           mode="gm")
            await gm.roll("luck", {"hit": -4}, targets=["Ysolde", "Gobelin"], mode="blind")
            opened = await gm.roll("luck", {"target": 12, "second_chance": True, "hit": 1},
                                   character="Gobelin", targets=["Brady"], dice=[1])
            await gm.request({"type": "react", "id": "d", "roll": opened["roll"],
                              "choice": "reroll"})
            return await values(gm, "Ysolde")
    ysolde = run(scenario())
    export = _export(db, tmp_path)
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "luck_rules.py").write_text((ROOT / "tests" / "sheet_plugin.py").read_text())
    done = _verify(export, "--plugins-dir", str(plugins))
    assert done.returncode == 0, done.stdout + done.stderr
    events = [json.loads(line) for line in export.read_text().splitlines()]
    notices = [e for e in events if e["type"] == "sheet" and e.get("op") == "effect"]
    assert [e["character"] for e in notices] == ["Ysolde", "Ysolde"]
    assert notices[-1]["values"] == ysolde
    hit = next(e for e in events if e.get("effects", {}).get("Gobelin"))
    hit["effects"]["Gobelin"]["luck"] = -1
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(e) + "\n" for e in events))
    done = _verify(forged, "--plugins-dir", str(plugins))
    assert done.returncode != 0 and f"seq {hit['seq']}" in done.stdout, done.stdout
    assert "effects" in done.stdout


def test_an_opposed_ask_of_characters_reads_each_others_sheet():
    """Each side's answer is aimed at the other sides' characters (and at the ask's own
    targets): its hooks read their sheets, its effects change them."""
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            ask = await gm.request({"type": "ask", "id": "a", "op": "open",
                                    "to": ["Ysolde", "Brady"], "ruleset": "luck",
                                    "params": {"hit": 1, "cost": 0}, "opposed": True,
                                    "targets": ["Gobelin"]})
            assert ask["type"] == "ask" and ask["targets"] == ["Gobelin"], ask
            first = await alice.roll("luck", {}, answers=ask["ask"])
            assert first["targets"] == ["Gobelin", "Brady"], first
            assert first["result"]["seen"] == {"Gobelin": 3, "Brady": 3}
            second = await bob.roll("luck", {}, answers=ask["ask"])
            assert second["targets"] == ["Gobelin", "Ysolde"]
            assert second["result"]["seen"] == {"Gobelin": 2, "Ysolde": 3}
            assert "opposition" in second
            luck = {name: (await values(gm, name))["luck"]
                    for name in ("Ysolde", "Brady", "Gobelin")}
            assert luck == {"Ysolde": 2, "Brady": 2, "Gobelin": 1}
            cooperative = await gm.request({"type": "ask", "id": "c", "op": "open",
                                            "to": ["Ysolde", "Brady"], "ruleset": "luck",
                                            "params": {"cost": 0}, "cooperative": True})
            # A cooperative ask's other sides are allies: nothing is aimed at them.
            answer = await alice.roll("luck", {}, answers=cooperative["ask"])
            assert answer["type"] == "outcome" and not answer.get("targets"), answer
    run(scenario())


def test_a_blind_roll_keeps_its_effects_from_its_own_roller_even_on_their_character():
    """Alice, blind, as Ysolde at her own Yvain: she learns nothing of how it went — no
    effects, no values, no notice — and her list keeps Yvain as she last saw him; a later
    effect she sees shows her these values with its own deltas, not the hidden ones."""
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            await gm.request({"type": "sheet", "id": "cy", "op": "set", "character": "Yvain",
                              "ruleset": "luck", "owner": "Alice", "values": {}})
            await alice.unseen()
            hidden = await alice.roll("luck", {"hit": 2, "cost": 0}, character="Ysolde",
                                      targets=["Yvain"], mode="blind")
            assert hidden["targets"] == ["Yvain"] and hidden["result"] == {"hidden": True}
            assert not {"effects", "target_sheets"} & set(hidden)
            gm_copy = await seq_of(gm, hidden["seq"])
            assert gm_copy["effects"] == {"Yvain": {"luck": -2}}
            assert gm_copy["target_sheets"]["Yvain"]["luck"] == 1
            assert await alice.unseen() == []  # no notice
            mine = await alice.request({"type": "sheet", "id": "l", "op": "list"})
            assert {c["character"]: c["values"]["luck"] for c in mine["characters"]} == {
                "Ysolde": 3, "Yvain": 3}
            seen = await bob.roll("luck", {"hit": 1, "cost": 0}, character="Brady",
                                  targets=["Yvain"])
            told = await seq_of(alice, seen["seq"])
            assert told["target_sheets"] == {"Yvain": {**told["target_sheets"]["Yvain"],
                                                       "luck": 2}}  # 3 - 1, not 0
            assert (await values(gm, "Yvain"))["luck"] == 0
    run(scenario())


def test_an_owner_not_told_before_a_crash_is_told_at_the_tables_next_change(tmp_path):
    """The notice's content is kept in the roll's own write: a server stopped between the
    hidden roll and its notice (the notice left unwritten here, as by a kill -9) tells
    the owner at the table's next change after the restart — once."""
    db = str(tmp_path / "journal.db")

    async def first() -> tuple[dict[str, Any], str]:
        async with running_server(host=luck_host(), db=db) as server:
            gm, alice, bob = await table(server)
            server.core.effect_notice = lambda table, name: None  # "killed" before it
            hit = await bob.roll("luck", {"hit": 2, "cost": 0}, character="Brady",
                                 targets=["Ysolde"], mode="gm")
            assert hit["effects"] == {"Ysolde": {"luck": -2}}
            assert await alice.unseen() == []
            tokens = await gm.request({"type": "seat", "id": "r", "op": "rotate",
                                       "name": "Alice"})
            return hit, tokens["token"]

    async def second(hit: dict[str, Any], token: str) -> None:
        async with running_server(host=luck_host(), db=db) as server:
            alice = await Peer.open(server)
            welcome = await alice.join("t", "Alice", token=token)
            ysolde = next(c for c in welcome["characters"] if c["character"] == "Ysolde")
            assert ysolde["values"]["luck"] == 3  # not told yet
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            later = await gm.roll("luck", {})
            told = await alice.recv_type("sheet")
            assert told["op"] == "effect" and told["reason"] == f"#{hit['seq']}"
            assert told["values"]["luck"] == 1 and told["seq"] == later["seq"] - 1
            assert told["changed"] == {"luck": [3, 1]}
            again = await gm.roll("luck", {})
            assert [m for m in await alice.unseen() if m["type"] == "sheet"] == []
            assert again["seq"] == later["seq"] + 1
            listed = await alice.request({"type": "sheet", "id": "l", "op": "list"})
            assert listed["characters"][0]["values"]["luck"] == 1
    hit, token = run(first())
    run(second(hit, token))


def test_the_plugin_kit_resolves_a_roll_aimed_at_characters():
    from sidecar.testing import resolve
    from tests import sheet_plugin

    out = resolve(sheet_plugin, "luck", {"hit": 2}, faces=[4],
                  targets={"Gob": {"luck": 3, "skill": 1}})
    assert out["result"]["seen"] == {"Gob": 3}
    assert out["effects"] == {"Gob": {"luck": -2}}
