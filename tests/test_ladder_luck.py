"""The ladder's luck is the Chance score (issue 26, audit item 6): « Utiliser un point de
chance permet de relancer le jet d'une action » and « un personnage dont le score de
chance est égal à 0 devient un personnage non joueur. Il faut donc au minimum 2 points de
chance » — the seed's « points de chance » are the Chance score's points, one pool for
the reroll and the sacrifice, never spent below 1."""

from __future__ import annotations

import pytest

from sidecar.protocol.errors import ProtocolError
from sidecar.testing import TableServer
from tests.sheet_helpers import after, new_sheet, rolled
from tests.sheet_helpers import choice_names as _names
from tests.sheet_helpers import react_to as _react

PARAMS = {"characteristic": "geste", "difficulty": 5}  # level 3: best of 2d6 against 5


def ervald(**values):
    return new_sheet("ladder", caracteristiques={"geste": 3}, **values)


def _roll(params, sheet=None, dice=None):
    return rolled("ladder", params, sheet, dice)


def test_a_default_sheet_rerolls_with_a_point_of_its_chance():
    sheet = ervald()
    assert sheet["chance"] == 2 and "points_chance" not in sheet
    roll, failed = _roll(PARAMS, sheet, [1, 2])
    assert _names(failed) == ["reroll", "sacrifice", "keep"]
    rerolled = _react(roll, failed, "reroll", [1, 3])
    assert rerolled.spend == {"chance": 1} and rerolled.result["rerolled"]
    # Chance 1 now: no point left to spend (« au minimum 2 »), the GM's choice follows.
    assert _names(rerolled) == ["success_at_cost", "success_at_cost_hp", "fail"]
    assert after(sheet, rerolled.spend, "ladder")["chance"] == 1


def test_chance_three_rerolls_then_sacrifices_and_chance_one_does_neither():
    sheet = ervald(chance=3)
    roll, failed = _roll(PARAMS, sheet, [1, 2])
    rerolled = _react(roll, failed, "reroll", [1, 3])
    assert _names(rerolled) == ["sacrifice", "keep"]
    roll.sheet = after(sheet, rerolled.spend, "ladder")
    assert _react(roll, rerolled, "sacrifice").spend == {"chance": 1}
    assert _names(_roll(PARAMS, ervald(chance=1), [1, 2])[1]) == [
        "success_at_cost", "success_at_cost_hp", "fail"]


def test_standing_orders_are_refused_before_the_dice_when_chance_cannot_pay_them():
    for params, chance, param in (({"reroll": True}, 1, "reroll"),
                                  ({"reroll": True, "sacrifice_chance": True}, 2,
                                   "sacrifice_chance")):
        with pytest.raises(ProtocolError) as refused:
            _roll({**PARAMS, **params}, ervald(chance=chance), [])
        assert refused.value.code == "invalid_params"
        assert refused.value.details == {"param": param}
    _, standing = _roll({**PARAMS, "reroll": True}, ervald(), [1, 2, 6, 1])
    assert standing.spend == {"chance": 1} and standing.result["success"]


def test_on_a_server_a_new_character_rerolls_with_its_chance():
    with TableServer() as server:
        gm = server.client()
        gm.set_sheet("Ervald", "ladder", {"caracteristiques": {"geste": 3}}, owner=None)
        out = gm.roll("ladder", PARAMS, character="Ervald", dice=[1, 2], mode="gm")
        assert [c["name"] for c in out["choices"]] == ["reroll", "sacrifice", "keep"]
        decided = gm.react(out, "reroll", [6, 2])
        assert decided["result"]["success"] and decided["spent"] == {"chance": 1}
        assert decided["sheet"]["chance"] == 1
