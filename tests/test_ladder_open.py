"""The ladder's luck decided after the dice (issue 12): a failed pair offers the reroll
(a point de chance) and the sacrifice of a Chance point; a success offers nothing."""

from __future__ import annotations

from fractions import Fraction

import pytest

import sidecar
from sidecar.probability import highest_of
from sidecar.protocol.errors import ProtocolError
from tests.helpers import Peer, run, running_server
from tests.rules_helpers import enumerate_real_rolls
from tests.sheet_helpers import after, new_sheet, rolled
from tests.sheet_helpers import choice_names as _names
from tests.sheet_helpers import react_to as _react

FAILED = {"level": 3, "difficulty": 5}  # best of 2d6 against 5


def _roll(params, sheet=None, dice=None):
    return rolled("ladder", params, sheet, dice)


def test_a_failed_pair_offers_reroll_sacrifice_and_keep_and_a_success_nothing():
    roll, failed = _roll(FAILED, dice=[1, 2])
    assert not failed.result["success"] and failed.default == "keep"
    assert failed.choices == [
        {"name": "reroll", "label": failed.choices[0]["label"], "dice": 2},
        {"name": "sacrifice", "label": failed.choices[1]["label"], "dice": 0},
        {"name": "keep", "label": failed.choices[2]["label"], "dice": 0}]
    assert failed.spend == {}
    _, success = _roll(FAILED, dice=[6, 2])
    assert success.result["success"] and success.choices is None
    _, narrow = _roll(FAILED, dice=[5, 1])
    assert narrow.result["kind"] == "narrow" and narrow.choices is None


def test_the_reroll_draws_a_new_pair_that_replaces_the_score_even_if_worse():
    roll, failed = _roll({"level": 4, "difficulty": 7}, dice=[4, 3])  # d6, d8 → 4
    good = _react(roll, failed, "reroll", [2, 8])
    assert [(d["sides"], d["face"], d.get("replaced", False)) for d in good.dice] == [
        (6, 4, True), (8, 3, True), (6, 2, False), (8, 8, False)] and good.dice[3]["kept"]
    assert good.result["score"] == 8 and good.result["success"]
    assert good.result["rerolled"] and good.result["first_score"] == 4
    assert good.choices is None and good.spend == {}  # no character: nothing spent
    worse = _react(roll, failed, "reroll", [1, 2])
    assert worse.result["score"] == 2 and not worse.result["success"]
    # One reroll per action: what is left is the sacrifice.
    assert _names(worse) == ["sacrifice", "keep"]
    saved = _react(roll, worse, "sacrifice")
    assert saved.result["success"] and saved.result["chance_sacrificed"]
    assert saved.result["kind"] == "narrow" and saved.result["rerolled"]
    kept = _react(roll, failed, "keep")
    # The failure stands for the player; the GM's « réussi, mais… » is offered next.
    assert kept.result == failed.result and _names(kept) == ["success_at_cost", "fail"]
    assert kept.dice == failed.dice


def test_the_reroll_and_the_sacrifice_each_take_a_point_of_chance_while_two_or_more():
    # (issue 26: the seed's « points de chance » are the Chance score's; test_ladder_luck.py)
    sheet = new_sheet("ladder", caracteristiques={"geste": 3}, chance=3)
    params = {"characteristic": "geste", "difficulty": 5}
    roll, failed = _roll(params, sheet, [1, 2])
    assert _names(failed) == ["reroll", "sacrifice", "keep"] and failed.spend == {}
    rerolled = _react(roll, failed, "reroll", [3, 4])
    assert rerolled.spend == {"chance": 1} and not rerolled.result["success"]
    sheet = after(sheet, rerolled.spend, "ladder")
    roll.sheet = dict(sheet)  # the server hands the hook the values now
    saved = _react(roll, rerolled, "sacrifice")
    assert saved.spend == {"chance": 1} and saved.result["success"]
    assert after(sheet, saved.spend, "ladder")["chance"] == 1
    # Chance 2: both offered; Chance 1: neither, and the roll is the GM's at once.
    assert _names(_roll(params, new_sheet("ladder", caracteristiques={"geste": 3},
                                          chance=2), [1, 2])[1]) \
        == ["reroll", "sacrifice", "keep"]
    assert _names(_roll(params, new_sheet("ladder", caracteristiques={"geste": 3}, chance=1),
                        [1, 2])[1]) \
        == ["success_at_cost", "success_at_cost_hp", "fail"]  # the GM's choice at once
    # Chance fell below 2 between the roll and the decision: refused, the roll stays open.
    roll, failed = _roll(params, new_sheet("ladder", caracteristiques={"geste": 3},
                                           chance=2), [1, 2])
    roll.sheet["chance"] = 1
    with pytest.raises(ProtocolError) as refused:
        _react(roll, failed, "sacrifice")
    assert refused.value.code == "invalid_params"


def test_without_a_character_the_typed_chance_decides_the_sacrifice_and_level_0_no_reroll():
    assert _names(_roll({**FAILED, "chance": 1}, dice=[1, 2])[1]) == ["success_at_cost",
                                                                      "fail"]
    assert _names(_roll({**FAILED, "chance": 2}, dice=[1, 2])[1]) \
        == ["reroll", "sacrifice", "keep"]
    assert _names(_roll({"level": 0, "difficulty": 3}, dice=[])[1]) == ["sacrifice", "keep"]


def test_standing_orders_still_work_and_leave_only_what_is_left_to_decide():
    roll, outcome = _roll({**FAILED, "reroll": True}, dice=[1, 2, 2, 3])
    assert outcome.result["rerolled"] and _names(outcome) == ["sacrifice", "keep"]
    _, outcome = _roll({**FAILED, "sacrifice_chance": True, "chance": 2}, dice=[1, 2])
    assert outcome.result["chance_sacrificed"] and outcome.choices is None


@pytest.mark.parametrize("level,difficulty", [(1, 3), (4, 6), (6, 9), (10, 12)])
def test_odds_of_a_standing_reroll_are_the_best_play_and_match_the_roll_code(level,
                                                                             difficulty):
    params = {"level": level, "difficulty": difficulty, "reroll": True}
    odds = sidecar.odds("ladder", params)
    kinds, scores = enumerate_real_rolls("ladder", params)
    for kind, p in odds["kinds"].items():
        assert abs(p - kinds.get(kind, 0)) < 1e-12, kind
    for value, p in odds["distribution"]["values"]:
        assert abs(p - scores.get(value, 0)) < 1e-12
    small, large = {1: (4, 4), 4: (6, 8), 6: (8, 10), 10: (12, 12)}[level]
    pair = highest_of(small, large).shift(max(0, level - 9))
    q = Fraction(sum(w for v, w in pair.counts.items() if v >= difficulty), pair.total)
    assert abs(odds["p_success"] - (1 - (1 - q) ** 2)) < 1e-12  # one more chance
    assert odds["p_success"] > sidecar.odds("ladder", {"level": level,
                                                       "difficulty": difficulty})["p_success"]


def test_through_a_server_the_player_rerolls_with_physical_dice_and_pays_from_the_sheet():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            token = (await gm.request({"type": "seat", "id": "s", "op": "add",
                                       "name": "Alice"}))["token"]
            await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Ervald",
                              "ruleset": "ladder", "owner": "Alice", "values": {
                                  "caracteristiques": {"geste": 3}, "chance": 3}})
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token)
            out = await alice.roll("ladder", {"characteristic": "geste", "difficulty": 5},
                                   character="Ervald", dice=[1, 2])
            assert out["open"] is True and out["default"] == "keep"
            assert [c["name"] for c in out["choices"]] == ["reroll", "sacrifice", "keep"]
            wrong = await alice.request({"type": "react", "id": "w", "roll": out["roll"],
                                         "choice": "reroll", "dice": [6]})
            assert wrong["code"] == "bad_dice"
            decided = await alice.request({"type": "react", "id": "r", "roll": out["roll"],
                                           "choice": "reroll", "dice": [6, 2]})
            assert decided["reacts_to"] == out["seq"] and decided["choice"] == "reroll"
            assert decided["result"]["score"] == 6 and decided["result"]["success"]
            assert decided["spent"] == {"chance": 1}
            assert decided["sheet"]["chance"] == 2 and "open" not in decided
            # Next roll: Chance 2, still the luck of one point; the sacrifice spends it.
            out = await alice.roll("ladder", {"characteristic": "geste", "difficulty": 5},
                                   character="Ervald", dice=[2, 1])
            assert [c["name"] for c in out["choices"]] == ["reroll", "sacrifice", "keep"]
            saved = await alice.request({"type": "react", "id": "s2", "roll": out["roll"],
                                         "choice": "sacrifice"})
            assert saved["result"]["success"] and saved["spent"] == {"chance": 1}
            assert saved["sheet"]["chance"] == 1
            assert "Réussite (Chance sacrifiée)" in saved["text"]
    run(scenario())
