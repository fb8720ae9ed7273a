"""d6code's combo chain kept on a character's sheet (issue 12). Seed 003: « il est possible
de tenter des Combos en réinvestissant aussitôt un Point de Style qui vient d'être regagné
dans l'action succédant directement à la précédente afin de doubler la mise en regagnant
deux SP au lieu d'un. […] une rupture dans la chaîne implique la perte de tous les points
accumulés par le biais de cette méthode ». Through a real server with manual dice."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import sidecar
from sidecar.protocol.errors import ProtocolError
from tests.helpers import Peer, run, running_server
from tests.rules_helpers import call
from tests.sheet_helpers import PIPELINE, new_sheet, odds_as, prepared

BLADE = {"skill": "ARMES BLANCHES", "style": "extreme", "difficulty": 10}  # 2D+1


async def _table(server, **values):
    """A GM, a seat Alice and her character Strengal (d6code) with ``values``."""
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    token = (await gm.request({"type": "seat", "id": "s", "op": "add", "name": "Alice"}))["token"]
    made = await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Strengal",
                             "ruleset": "d6code", "owner": "Alice", "values": {
                                 "competences": {"ARMES BLANCHES": "2D+1",
                                                 "PILOTAGE": "4D+3"}, **values}})
    assert made["type"] == "sheet", made
    alice = await Peer.open(server)
    await alice.join("t", "Alice", token=token)
    return gm, alice


def _chain(sheet):
    return sheet["points_style"], sheet["combo_mise"], sheet["combo_points"]


async def _given(gm, out):
    """The GM gives back what extreme style allows (the seed leaves it to the GM, issue
    26: tests/test_d6code_recovery.py): the decision that settles the chain."""
    assert out["open"] and out["default"] == "sp_keep", out
    decided = await gm.request({"type": "react", "id": f"g{out['seq']}", "roll": out["roll"],
                                "choice": "sp_return"})
    assert decided["type"] == "outcome", decided
    return decided


def test_the_chain_doubles_the_stake_then_the_next_action_without_reinvesting_breaks_it():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice = await _table(server, points_style=1)
            # 1: a point spent and regained (no 1, no 6: 1 SP): the chain starts.
            out = await alice.roll("d6code", BLADE, character="Strengal", dice=[4, 5, 3, 2])
            out = await _given(gm, out)
            assert out["result"]["style"]["stake"] == 1
            assert out["result"]["combo_chain"] == {"stake": 1, "next_stake": 2, "points": 0,
                                                    "broken": False}
            assert _chain(out["sheet"]) == (1, 2, 0)
            # 2: reinvested at once: the stake doubles, 2 SP come back (1 beyond a plain
            # recovery: the combo's).
            out = await _given(gm, await alice.roll("d6code", BLADE, character="Strengal",
                                                    dice=[4, 5, 3, 2]))
            assert out["result"]["style"] == {"mode": "extreme", "faces": [3, 2], "stake": 2,
                                              "sp_recovered": 2, "sp_recoverable": 2}
            assert _chain(out["sheet"]) == (2, 4, 1)
            assert "combo ×2, prochaine mise ×4" in out["text"]
            # 3: again, with a 6: 2 × 4 = 8 SP back, 6 of them the combo's.
            out = await _given(gm, await alice.roll("d6code", BLADE, character="Strengal",
                                                    dice=[4, 5, 6, 2]))
            assert out["result"]["style"]["sp_recovered"] == 8  # (the roll took 1)
            assert out["spent"] == {"points_style": -8, "combo_mise": -4, "combo_points": -6}
            assert _chain(out["sheet"]) == (9, 8, 7)
            # 4: the very next action, another skill, no style point: the chain breaks and
            # the 7 points it gained are lost, in the same write as the outcome.
            out = await alice.roll("d6code", {"skill": "PILOTAGE", "difficulty": 10},
                                   character="Strengal", dice=[6, 6, 6, 6])
            assert out["result"]["success"] and "open" not in out
            assert out["result"]["combo_chain"] == {"stake": None, "next_stake": 0,
                                                    "points": 0, "broken": True, "lost": 7}
            assert out["spent"] == {"points_style": 7, "combo_mise": 8, "combo_points": 7}
            assert _chain(out["sheet"]) == (2, 0, 0)
            assert "chaîne de combos rompue : −7 SP" in out["text"]
            # No chain any more: the next roll changes nothing of it.
            out = await alice.roll("d6code", {"skill": "PILOTAGE", "difficulty": 10},
                                   character="Strengal", dice=[6, 6, 6, 6])
            assert "combo_chain" not in out["result"] and not out.get("spent")
    run(scenario())


def test_a_point_engaged_after_the_dice_continues_and_a_point_lost_breaks_the_chain():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice = await _table(server, points_style=1)
            out = await _given(gm, await alice.roll("d6code", BLADE, character="Strengal",
                                                    dice=[4, 5, 6, 2]))
            assert _chain(out["sheet"]) == (2, 2, 0)  # a 6 at stake 1: no combo points
            # The next action fails without a point: open, nothing settled yet.
            out = await alice.roll("d6code", {"skill": "ARMES BLANCHES", "difficulty": 15},
                                   character="Strengal", dice=[2, 3])
            assert out["open"] is True and not out.get("spent")
            assert [c["name"] for c in out["choices"]] == ["style_libre", "style_extreme",
                                                           "keep"]
            # The point engaged after the dice is the reinvestment: stake 2.
            decided = await _given(gm, await alice.request({
                "type": "react", "id": "x", "roll": out["roll"], "choice": "style_extreme",
                "dice": [6, 5]}))
            r = decided["result"]
            assert r["success"] and r["score"] == 17 and r["style"]["stake"] == 2
            assert r["style"]["sp_recovered"] == 4
            assert _chain(decided["sheet"]) == (5, 4, 2)
            # Reinvested again, but a 1: the point does not come back, the chain breaks.
            out = await alice.roll("d6code", BLADE, character="Strengal", dice=[4, 5, 1, 5])
            assert out["result"]["style"]["sp_recovered"] == 0
            assert out["result"]["combo_chain"]["broken"] is True
            assert out["result"]["combo_chain"]["lost"] == 2
            assert _chain(out["sheet"]) == (2, 0, 0)  # 5 − 1 spent − 2 lost
            # A chain left to the default ("keep", the time running out) breaks as well.
            out = await _given(gm, await alice.roll("d6code", BLADE, character="Strengal",
                                                    dice=[4, 5, 3, 2]))
            assert _chain(out["sheet"]) == (2, 2, 0)
            out = await alice.roll("d6code", {"skill": "ARMES BLANCHES", "difficulty": 15},
                                   character="Strengal", dice=[2, 3])
            kept = await gm.request({"type": "react", "id": "k", "roll": out["roll"],
                                     "choice": "keep"})
            assert kept["result"]["combo_chain"]["broken"] is True
            assert _chain(kept["sheet"]) == (2, 0, 0)
            # As a character the sheet keeps the chain: the combo param is refused.
            refused = await alice.roll("d6code", {**BLADE, "combo": 4}, character="Strengal",
                                       dice=[4, 5, 3, 2])
            assert refused["code"] == "invalid_params"
            assert refused["details"]["param"] == "combo"
    run(scenario())


def test_a_free_style_point_breaks_the_chain_and_the_give_back_stops_at_the_maximum():
    sheet = new_sheet("d6code", competences={"ARMES BLANCHES": "2D+1"}, points_style=3,
                      combo_mise=2, combo_points=1)
    roll = prepared("d6code", {**BLADE, "style": "libre"}, sheet)
    out = call(PIPELINE.resolve(roll, [4, 5, 3, 2], {}, []))
    assert out.result["combo_chain"]["broken"] and out.result["combo_chain"]["lost"] == 1
    assert out.spend == {"points_style": 2, "combo_mise": 2, "combo_points": 1}
    # A long chain's recovery does not overflow the sheet's 99 points: it stops there.
    sheet = new_sheet("d6code", competences={"ARMES BLANCHES": "2D+1"}, points_style=90,
                      combo_mise=64, combo_points=80)
    roll = prepared("d6code", BLADE, sheet)
    held = call(PIPELINE.resolve(roll, [4, 5, 6, 2], {}, []))
    assert held.result["style"]["sp_recoverable"] == 128 and held.spend == {"points_style": 1}
    roll.sheet = {**sheet, "points_style": 89}
    out = call(PIPELINE.react(roll, held, "sp_return", None, {})).outcome
    assert out.result["style"]["sp_recovered"] == 128
    assert out.spend["points_style"] == 89 - 99 and out.spend["combo_mise"] == 64 - 128
    assert sheet["combo_points"] - out.spend["combo_points"] == 99


def _enumerate_as(params, sheet):
    """Every face sequence through the real roll code, as the character: kinds and scores,
    each weighted by its exact probability."""
    kinds, scores = Counter(), Counter()
    pending = [[]]
    while pending:
        faces = pending.pop()
        try:
            outcome = call(PIPELINE.resolve(prepared("d6code", params, sheet), faces, {}, []))
        except ProtocolError as error:
            assert error.code == "bad_dice", error
            pending.extend(faces + [face] for face in range(1, 7))
            continue
        share = Fraction(1, math.prod(d["sides"] for d in outcome.dice))
        kinds[outcome.result["kind"]] += share
        scores[outcome.result["score"]] += share
    return kinds, scores


def test_odds_as_a_character_in_a_chain_stay_exact():
    """The chain changes what comes back, never the dice: the odds as a character with a
    chain on are those of the typed roll, and match enumeration of the roll code."""
    sheet = new_sheet("d6code", competences={"ARMES BLANCHES": "2D+1"}, points_style=5,
                      combo_mise=4, combo_points=3)
    params = {"skill": "ARMES BLANCHES", "style": "extreme", "difficulty": 12}
    odds = odds_as("d6code", params, sheet)
    assert odds == sidecar.odds("d6code", {"code": "2D+1", "style": "extreme",
                                           "difficulty": 12})
    kinds, scores = _enumerate_as(params, sheet)
    for kind, p in odds["kinds"].items():
        assert abs(p - kinds.get(kind, 0)) < 1e-12, kind
    for value, p in odds["distribution"]["values"]:
        assert abs(p - scores.get(value, 0)) < 1e-12, value
