"""What naming a target tells its roller (contract §8: « Naming a target reveals nothing of
its sheet to the roller beyond what the outcome itself shows »), against a real server:
a blind roll's hit and miss look alike to its roller (frames, history, seq gaps), a
player's free odds read no sheet they may not see, a refusal names no value of a target's
sheet, and a player's typed value never replaces one the target's sheet holds (issue 26,
an outside attacker's report).

The ``luck`` test ruleset (tests/sheet_plugin.py): ``hit`` takes that much ``luck`` from
every target, with ``hit_on_success`` only when the d6 + ``skill`` reaches ``target``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.helpers import run, running_server
from tests.support.plugins import luck_host
from tests.test_fights_live import table as fight_table
from tests.test_targets import table

#: A blind roll at Brady: the face decides whether it lands (d6 + 0 against 4).
BLIND_HIT = {"hit": 1, "hit_on_success": True, "cost": 0, "skill": 0, "target": 4}


def _shape(frame: dict[str, Any], seq: int) -> Any:
    """A frame as its reader can compare it across rolls: seqs made relative to the roll's,
    ids and times left out."""
    def walk(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in sorted(value.items())
                    if k not in ("id", "roll", "time", "at", "ts", "request_id")}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if key in ("seq", "hidden_notes", "after", "last", "next", "reason") \
                and isinstance(value, int) and not isinstance(value, bool):
            return value - seq
        return value
    return walk(frame)


def test_a_blind_rolls_hit_and_miss_look_the_same_to_its_roller():
    """Alice, blind, as Ysolde at Bob's Brady: a hit changes Brady's luck, a miss does not;
    Bob is told either way by a ``sheet`` ``effect`` event (a miss: the same values, nothing
    changed), so the seq after her roll is taken hit or miss and nothing she gets — the
    answer, what follows it, a history page with its ``hidden_notes`` — tells them apart."""
    faces = [6, 1, 1, 6, 5, 2, 3, 4]  # four hits (4, 5, 6), four misses
    async def scenario():
        async with running_server(host=luck_host(), allow_player_dice=True) as server:
            gm, alice, bob = await table(server)
            await gm.request({"type": "sheet", "id": "full", "op": "set", "character": "Brady",
                              "ruleset": "luck", "owner": "Bob",
                              "values": {"luck": 5, "skill": 3}})
            views: list[tuple[bool, Any]] = []
            seqs = []
            for face in faces:
                await alice.unseen()
                alice.seen.clear()
                reply = await alice.roll("luck", BLIND_HIT, character="Ysolde",
                                         targets=["Brady"], mode="blind", dice=[face])
                assert reply["type"] == "outcome", reply
                after = await alice.unseen()
                seq = reply["seq"]
                seqs.append(seq)
                page = await alice.request({"type": "history", "id": "h", "after": seq,
                                            "limit": 1})
                views.append((face >= 4, [_shape(f, seq) for f in [reply, *after, page]]))
                # The GM sees what happened: a hit takes one luck, a miss nothing.
                gm_copy = next(e for e in (await gm.request(
                    {"type": "history", "id": "g", "after": seq - 1, "limit": 1}))["events"])
                assert (gm_copy.get("effects") or {}) == (
                    {"Brady": {"luck": -1}} if face >= 4 else {}), (face, gm_copy)
            # Bob is told after each roll, hit or miss: the seq after it is his notice.
            told = [f for f in bob.seen if f.get("op") == "effect"]
            told += [f for f in await bob.unseen() if f.get("op") == "effect"]
            assert [f["seq"] for f in told] == [s + 1 for s in seqs]
            assert [bool(f["changed"]) for f in told] == [face >= 4 for face in faces]
            hits = [view for hit, view in views if hit]
            misses = [view for hit, view in views if not hit]
            assert hits and misses
            for view in hits + misses:
                assert view == views[0][1]
            # The seq gaps between her rolls are the same, hit or miss.
            assert {b - a for a, b in zip(seqs, seqs[1:], strict=False)} == {2}
    run(scenario())


def test_a_players_odds_read_no_sheet_they_may_not_see():
    """Odds are free and journal nothing: a player's odds at the GM's NPC (or at another
    seat's character) are the same whatever its sheet holds — the hooks get it as a target
    without a sheet —, a GM's read it, and a player's own character is read as ever."""
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, alice, bob = await table(server)
            odds = {"type": "odds", "id": "o", "ruleset": "luck", "params": {"skill": 2}}
            answers: dict[str, list[Any]] = {"alice": [], "gm": [], "own": []}
            for skill in (1, 5):
                for name, owner in (("Gobelin", None), ("Brady", "Bob")):
                    made = await gm.request({"type": "sheet", "id": f"s{name}{skill}", "op": "set",
                                      "character": name, "ruleset": "luck", "owner": owner,
                                      "values": {"skill": skill}})
                    assert made["type"] == "sheet", made
                for name in ("Gobelin", "Brady"):
                    answers["alice"].append(await alice.request({**odds,
                                                                 "targets": [name]}))
                answers["gm"].append(await gm.request({**odds, "targets": ["Gobelin"]}))
                answers["own"].append(await bob.request({**odds, "targets": ["Brady"]}))
            assert all(a["type"] == "odds" for group in answers.values() for a in group)
            # Alice's answers are one answer, low or high, NPC or Bob's Brady.
            assert all(a == answers["alice"][0] for a in answers["alice"]), answers["alice"]
            gm_low, gm_high = answers["gm"]
            assert gm_low != gm_high and gm_low["p_success"] > gm_high["p_success"]
            assert answers["own"][0] != answers["own"][1]  # (Bob's own Brady: read)
    run(scenario())


def _text(error: dict[str, Any]) -> str:
    """What an error tells its reader (its id left out: hex digits)."""
    return json.dumps({k: v for k, v in error.items() if k != "id"}, ensure_ascii=False)


#: The GM's Ogre: no digit of its sheet may reach a player's refusal.
OGRE = (None, {"pep": 7, "ecl": 8, "enc": 9})


def test_a_players_typed_value_never_replaces_one_a_targets_sheet_holds(boss_host):
    """Alice types the Ogre's Peps, ENC, ECL, a difficulty, the Capitaine's armour or an
    invented weak point: each refused before the dice, naming the param and no value of the
    sheet; the GM's typed values still win, in a roll and in an ask Alice answers."""
    async def scenario():
        async with running_server(boss_host, allow_player_dice=True) as server:
            gm, alice, bob = await fight_table(server, "oweens", {
                "Aengus": ("Alice", {"pep": 4, "ecl": 3, "enc": 3}),
                "Brady": ("Bob", {"pep": 3, "ecl": 2, "enc": 2}), "Ogre": OGRE,
                "Capitaine": (None, {"pep": 3, "armure": 2, "points_faibles": {"oeil": 1}})})
            melee = {"attack": "melee"}
            typed = [
                ("options.combat.opponent_pep", {}, {"combat": {**melee, "opponent_pep": 0}}),
                ("options.combat.target_enc", {}, {"combat": {
                    **melee, "options": ["assommer"], "target_enc": 0, "opponent_pep": 0}}),
                ("options.combat.target_ecl", {"characteristic": "ENC"},
                 {"combat": {"hold": True, "target_ecl": 0}}),
                ("difficulty", {"difficulty": 1}, {}),
                ("options.boss.weak_points", {}, {"combat": melee, "boss": {
                    "weak_points": {"pied": 100}, "aim": "pied"}}),
                ("options.boss.armor", {}, {"combat": melee, "boss": {"armor": 0}})]
            before = (await gm.roll("dice", {"expr": "1d6"}))["seq"]
            for param, params, options in typed:
                for target in ("Ogre", "Brady", "Capitaine"):
                    refused = await alice.roll("oweens", {"characteristic": "PEP", **params},
                                               character="Aengus", targets=[target],
                                               options=options, dice=[6, 6, 6, 6])
                    assert refused["code"] == "invalid_params", (param, target, refused)
                    assert refused["details"]["param"] == param, refused
                    whose = "d'Ogre" if target == "Ogre" else f"de {target}"
                    assert f"la fiche {whose} fixe cette valeur" in refused["message"], refused
                    assert "seul un MJ" in refused["message"]
                    if target == "Ogre":
                        assert not re.search(r"\d", _text(refused)), refused
            # Nothing was rolled: the GM's next roll is the next seq.
            assert (await gm.roll("dice", {"expr": "1d6"}))["seq"] == before + 1
            # The GM's typed values win (an NPC without a sheet, the GM's call).
            called = await gm.roll("oweens", {"characteristic": "PEP", "dice": 3},
                                   targets=["Ogre"],
                                   options={"combat": {**melee, "opponent_pep": 1}},
                                   dice=[6, 6, 6])
            assert called["result"]["difficulty"] == 1, called
            boss = await gm.roll("oweens", {"characteristic": "PEP", "dice": 3},
                                 targets=["Capitaine"], dice=[6, 6, 4],
                                 options={"combat": melee, "boss": {"armor": 0}})
            assert boss["result"]["boss"]["armor"] == 0, boss
            # So do they in an ask Alice answers: its params are the GM's.
            ask = await gm.request({"type": "ask", "id": "a", "op": "open", "to": ["Aengus"],
                                    "ruleset": "oweens", "targets": ["Ogre"],
                                    "params": {"characteristic": "PEP", "difficulty": 1}})
            answer = await alice.roll("oweens", {}, answers=ask["ask"], dice=[6, 6, 6, 6])
            assert answer["type"] == "outcome" and answer["result"]["difficulty"] == 1, answer
            # With no value typed, the sheet is read (the Ogre's Peps 7).
            plain = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                     targets=["Ogre"], options={"combat": melee},
                                     dice=[6, 6, 6, 6])
            assert plain["type"] == "outcome" and plain["result"]["difficulty"] == 7, plain
    run(scenario())


def test_a_refusal_names_no_value_of_a_targets_sheet():
    """d6code: a skill missing from the GM's Krull is refused to Alice without his skills
    (the GM's refusal lists them); O'Ween's (above) and Bloodlust refuse with nothing of the
    target's sheet."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, bob = await fight_table(server, "d6code", {
                "Strengal": ("Alice", {"competences": {"CORPS À CORPS": "3D+5"}}),
                "Krull": (None, {"competences": {"EPEE": "4D+1", "SECRET": "2D"}})})
            refused = await alice.roll("d6code", {"skill": "CORPS À CORPS",
                                                  "opponent_skill": "X"},
                                       character="Strengal", targets=["Krull"])
            assert refused["code"] == "invalid_params", refused
            assert refused["details"]["param"] == "opponent_skill"
            assert "« X » n'est pas sur la fiche de Krull" in refused["message"], refused
            for secret in ("EPEE", "SECRET", "4D", "2D"):
                assert secret not in _text(refused), refused
            listed = await gm.roll("d6code", {"code": "3D", "opponent_skill": "X"},
                                   targets=["Krull"])
            assert "EPEE" in listed["message"], listed
        async with running_server(allow_player_dice=True) as server:
            gm, alice, bob = await fight_table(server, "bloodlust", {
                "Vlad": ("Alice", {}), "Chasseur": (None, {"volonte": 7})})
            tense = await alice.roll("bloodlust", {"pool": 6, "difficulty": 4,
                                                   "automatic": True}, character="Vlad",
                                     targets=["Chasseur"])
            assert tense["code"] == "invalid_params"
            assert not re.search(r"\d", _text(tense)), tense
    run(scenario())
