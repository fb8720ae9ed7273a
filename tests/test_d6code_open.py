"""d6code decided after the dice (issue 12): a double's reroll asked for when physical
twins show it, and a style point engaged after a failed roll."""

from __future__ import annotations

import asyncio

import pytest

import sidecar
from sidecar.protocol.errors import ProtocolError
from tests.helpers import Peer, run, running_server
from tests.sheet_helpers import PIPELINE, after, new_sheet, prepared
from tests.sheet_helpers import choice_names as _names

PILOTAGE = {"code": "4D+3", "modifier": 3, "twin": True, "difficulty": 20}


def _roll(params, dice, *, sheet=None, manual=True):
    roll = prepared("d6code", params, sheet)
    roll.manual = manual
    return roll, asyncio.run(PIPELINE.run(roll, dice=dice, table_state={})).outcome


def _react(roll, outcome, choice, dice=None):
    roll.manual = dice is not None  # as the server reopens it
    return asyncio.run(PIPELINE.react(roll, outcome, choice, dice, {})).outcome


def test_physical_twins_showing_a_double_ask_for_the_reroll_then_the_seed_example():
    """Seed: « Les deux dés classiques donnent un 7 et les dés jumeaux donnent un double 4 !
    Il est donc possible de les relancer ce qui permet d'obtenir 6. Au total, c'est un 27
    (7+8+6+3+3) »."""
    roll, out = _roll(PILOTAGE, [3, 4, 4, 4])
    assert out.choices == [{"name": "twin_reroll", "label": out.choices[0]["label"],
                            "dice": 2}] and out.default == "twin_reroll"
    assert out.result["twin"]["awaiting_reroll"] and out.result["score"] == 21
    assert out.result["label"]["en"] == "Twin double: reroll to roll"
    decided = _react(roll, out, "twin_reroll", [2, 4])
    assert decided.result["score"] == 27 and decided.result["success"]
    assert decided.result["twin"] == {"faces": [4, 4], "state": "double", "reroll": [2, 4],
                                      "total": 14}
    assert [(d["face"], d["role"]) for d in decided.dice] == [
        (3, "normal"), (4, "normal"), (4, "twin"), (4, "twin"), (2, "twin_reroll"),
        (4, "twin_reroll")]
    assert decided.choices is None


def test_secure_dice_and_faces_typed_up_front_resolve_at_once_in_the_same_order():
    for manual in (False, True):  # automatic order, or the reroll typed with the rest
        _, out = _roll(PILOTAGE, [3, 4, 4, 4, 2, 4], manual=manual)
        assert out.choices is None and out.result["score"] == 27
        assert [d["role"] for d in out.dice] == ["normal"] * 2 + ["twin"] * 2 \
            + ["twin_reroll"] * 2
    # No double: nothing is awaited.
    _, out = _roll(PILOTAGE, [3, 4, 5, 2])
    assert out.choices is None and out.result["twin"]["state"] == "normal"


def test_the_awaited_reroll_gives_what_the_same_faces_typed_up_front_give():
    params = {"code": "3D", "twin": True, "style": "libre", "opponent": "1D"}
    roll, out = _roll(params, [2, 3, 3, 5, 6, 4])  # normal, twins, style, opponent
    assert _names(out) == ["twin_reroll"]
    assert [d["role"] for d in out.dice] == ["normal", "twin", "twin", "style", "style",
                                             "opponent"]
    decided = _react(roll, out, "twin_reroll", [1, 1])
    _, upfront = _roll(params, [2, 3, 3, 1, 1, 5, 6, 4], manual=False)
    assert decided.result == upfront.result and decided.result["score"] == 21


def test_a_reroll_that_turns_the_roll_gives_back_what_extreme_style_then_returns():
    sheet = new_sheet("d6code", points_style=1)
    params = {"code": "2D", "twin": True, "style": "extreme", "difficulty": 20}
    roll, out = _roll(params, [3, 3, 6, 2], sheet=sheet)
    assert not out.result["success"] and out.spend == {"points_style": 1}
    sheet = after(sheet, out.spend, "d6code")
    roll.sheet = dict(sheet)
    decided = _react(roll, out, "twin_reroll", [6, 6])
    assert decided.result["score"] == 26 and decided.result["success"]
    # The 6 doubles what may come back; the GM gives it back (tests/test_d6code_recovery.py)
    assert decided.result["style"]["sp_recoverable"] == 2 and decided.spend == {}
    assert decided.default == "sp_keep"
    given = _react(roll, decided, "sp_return")
    assert given.result["style"]["sp_recovered"] == 2
    # ...which starts a combo chain (next stake 2).
    assert given.spend == {"points_style": -2, "combo_mise": -2}
    assert after(sheet, given.spend, "d6code")["points_style"] == 2


def test_a_style_point_engaged_after_losing_plays_the_seed_duel():
    """Seed: « Strengal obtient 9 sur ses 2D de base et un 1 et un 5 sur ses dés de style
    soit un résultat de 16 (9+6+1). Réalisant un jet de 13, Krull, avec son résultat de
    15 (13+2) » — here Strengal engages the point once he sees he is losing."""
    sheet = new_sheet("d6code", competences={"ARMES BLANCHES": "2D+1"}, points_style=1)
    duel = {"skill": "ARMES BLANCHES", "opponent": "4D+2"}
    roll, out = _roll(duel, [4, 5, 3, 3, 3, 4], sheet=sheet, manual=False)
    assert out.result["opposed"]["winner"] == "opponent" and out.default == "keep"
    assert _names(out) == ["style_libre", "style_extreme", "keep"]
    assert all(c["dice"] == 2 for c in out.choices[:2]) and out.spend == {}
    decided = _react(roll, out, "style_extreme", [1, 5])
    r = decided.result
    assert r["score"] == 16 and r["opposed"]["score"] == 15
    assert r["opposed"]["winner"] == "roller" and r["style"]["sp_recovered"] == 0
    assert decided.spend == {"points_style": 1} and decided.choices is None
    _, declared = _roll({**duel, "style": "extreme"}, [4, 5, 1, 5, 3, 3, 3, 4], sheet=sheet)
    assert declared.result == r  # the same as a point declared before the dice
    kept = _react(roll, out, "keep")
    assert kept.result == out.result and kept.spend == {}


def test_when_a_style_point_is_offered():
    failed = {"code": "2D+1", "difficulty": 12}
    assert _names(_roll(failed, [3, 4])[1]) == ["style_libre", "style_extreme", "keep"]
    assert _roll(failed, [6, 5])[1].choices is None  # a success
    assert _names(_roll({"code": "1D", "opponent": "1D"}, [3, 3])[1])[0] == "style_libre"
    assert _roll({**failed, "style": "libre"}, [1, 1, 1, 1])[1].choices is None
    assert _roll(failed, [3, 4], sheet=new_sheet("d6code", points_style=0))[1].choices \
        is None  # no SP left on the sheet
    libre = _react(*_roll(failed, [3, 4]), "style_libre", [2, 2])
    assert libre.result["score"] == 12 and libre.result["style"]["gm_may_return"]
    assert libre.spend == {}  # no character: the GM tracks by hand


def test_an_automatic_success_with_a_style_point_spends_both_from_the_sheet():
    sheet = new_sheet("d6code", competences={"PILOTAGE": "4D+3"}, points_style=1,
                      points_surcompetence=1)
    roll, out = _roll({"skill": "PILOTAGE", "surcompetence": "auto", "style": "extreme",
                       "difficulty": 25}, [6, 2], sheet=sheet)
    assert out.result["success"] and _names(out) == ["sp_return", "sp_keep"]
    assert out.spend == {"points_surcompetence": 1, "points_style": 1}
    given = _react(roll, out, "sp_return")  # the GM gives back what the 6 doubled
    assert given.spend == {"points_style": -2, "combo_mise": -2}


def test_through_a_server_physical_twins_then_the_reroll_then_a_style_point():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            player = await Peer.open(server)
            await player.join("t", "Strengal")
            out = await player.roll("d6code", {**PILOTAGE, "difficulty": 30},
                                    dice=[3, 4, 4, 4])
            assert out["open"] is True and out["default"] == "twin_reroll"
            assert [c["name"] for c in out["choices"]] == ["twin_reroll"]
            assert "relance à lancer" in out["text"]
            wrong = await player.request({"type": "react", "id": "w", "roll": out["roll"],
                                          "choice": "twin_reroll", "dice": [2]})
            assert wrong["code"] == "bad_dice"
            rerolled = await player.request({"type": "react", "id": "r", "roll": out["roll"],
                                             "choice": "twin_reroll", "dice": [2, 4]})
            assert rerolled["result"]["score"] == 27 and not rerolled["result"]["success"]
            # Still short of 30: the roll stays open for a style point.
            assert rerolled["open"] is True
            assert [c["name"] for c in rerolled["choices"]] == ["style_libre",
                                                                "style_extreme", "keep"]
            styled = await player.request({"type": "react", "id": "s", "roll": out["roll"],
                                           "choice": "style_extreme", "dice": [6, 3]})
            assert styled.get("type") == "outcome", styled
            assert styled["reacts_to"] == rerolled["seq"] and styled["result"]["score"] == 36
            assert styled["result"]["success"] and "open" not in styled
            assert styled["result"]["style"]["sp_recovered"] == 2
            seen = await gm.recv_type("outcome")
            assert seen["roll"] == out["roll"]
    run(scenario())


def test_a_standing_style_order_plays_only_on_a_failure_or_a_draw_its_dice_last():
    needed = {"code": "2D+1", "difficulty": 12, "style_if_needed": "extreme"}
    roll, out = _roll(needed, [3, 4, 1, 5], manual=False)
    assert out.result["score"] == 14 and out.result["style"]["mode"] == "extreme"
    assert out.result["style"]["sp_recovered"] == 0 and out.choices is None
    _, fine = _roll(needed, [6, 5], manual=False)  # 12: no point engaged, no dice drawn
    assert fine.result["style"] is None and len(fine.dice) == 2
    duel = {"code": "2D", "opponent": "1D+1", "style_if_needed": "libre"}
    _, out = _roll(duel, [3, 4, 6, 1, 1], manual=False)  # 7 vs 7: a draw, then the point
    assert out.result["score"] == 9 and out.result["opposed"]["winner"] == "roller"
    assert out.result["style"]["gm_may_return"]
    sheet = new_sheet("d6code", competences={"ARMES BLANCHES": "2D+1"}, points_style=1)
    _, out = _roll({"skill": "ARMES BLANCHES", "opponent": "4D+2",
                    "style_if_needed": "extreme"}, [4, 5, 3, 3, 3, 4, 1, 5], sheet=sheet)
    assert [d["role"] for d in out.dice][-2:] == ["style", "style"]
    assert out.result["score"] == 16 and out.result["opposed"]["winner"] == "roller"
    assert out.spend == {"points_style": 1}
    _, won = _roll({"skill": "ARMES BLANCHES", "opponent": "1D",
                    "style_if_needed": "extreme"}, [4, 5, 3], sheet=sheet)
    assert won.spend == {} and won.result["style"] is None


def test_a_standing_style_order_is_one_style_point():
    with pytest.raises(ProtocolError) as refused:
        _roll({"code": "2D", "difficulty": 9, "style": "libre", "style_if_needed": "libre"},
              [1, 1, 1, 1])
    assert refused.value.details == {"param": "style_if_needed"}


@pytest.mark.parametrize("params", [
    {"code": "1D+1", "difficulty": 5, "style_if_needed": "extreme"},
    {"code": "1D+2", "difficulty": 12, "surcompetence": "double", "style_if_needed": "libre"},
    {"code": "2D", "twin": True, "difficulty": 8, "style_if_needed": "libre"},
    {"code": "1D", "opponent": "1D", "style_if_needed": "libre"},
    {"code": "1D+1", "opponent": "1D", "difficulty": 4, "style_if_needed": "extreme"},
])
def test_odds_of_a_standing_style_order_match_the_roll_code(params):
    from tests.rules_helpers import enumerate_real_rolls
    odds = sidecar.odds("d6code", params)
    kinds, scores = enumerate_real_rolls("d6code", params)
    for kind, p in odds["kinds"].items():
        assert abs(p - kinds.get(kind, 0)) < 1e-12, (kind, odds["kinds"], kinds)
    for value, p in odds["distribution"]["values"]:
        assert abs(p - scores.get(value, 0)) < 1e-12, value
    plain = {k: v for k, v in params.items() if k != "style_if_needed"}
    assert odds["p_success"] > sidecar.odds("d6code", plain)["p_success"]
