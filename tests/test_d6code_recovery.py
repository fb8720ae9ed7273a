"""d6code: the GM decides whether an extreme-style point comes back (issue 26, audit item
6). « Dans le cadre du Style Libre, il est possible en réussissant l'action de récupérer le
Point de Style s'il est utilisé à un moment particulièrement crucial … Dans le cadre du
Style Extrême, c'est assez semblable à la différence près que les valeurs obtenues sur les
dés … influent sur la récupération du point : un 1 empêche de récupérer le SP quoi qu'il
arrive alors qu'un 6 permet de doubler le nombre de SP récupérés. »"""

from __future__ import annotations

import asyncio

import pytest

from sidecar.client import SidecarError
from sidecar.testing import TableServer
from tests.sheet_helpers import PIPELINE, after, new_sheet, roll_as

BLADE = {"skill": "ARMES BLANCHES", "style": "extreme", "difficulty": 10}  # 2D+1


def strengal(**values):
    return new_sheet("d6code", **{"competences": {"ARMES BLANCHES": "2D+1"},
                                  "points_style": 1, **values})


def react(rolled, choice, sheet):
    roll = rolled.roll
    roll.sheet = dict(sheet)
    return asyncio.run(PIPELINE.react(roll, rolled.outcome, choice, None, rolled.state))


def test_a_successful_extreme_point_waits_for_the_gm_who_gives_back_what_the_dice_allow():
    hero = strengal()
    six = roll_as("d6code", BLADE, hero, [4, 5, 6, 2])  # 9 + 8 + 1 = 18, a 6: 2 SP
    out = six.outcome
    assert out.result["success"] and out.spend == {"points_style": 1}
    assert out.result["style"]["sp_recoverable"] == 2
    assert out.result["style"]["sp_recovered"] == 0
    assert [(c["name"], c.get("gm")) for c in out.choices] == [("sp_return", True),
                                                                ("sp_keep", True)]
    assert out.default == "sp_keep"  # the GM did not intervene: nothing comes back
    now = after(hero, out.spend, "d6code")
    given = react(six, "sp_return", now)
    assert given.outcome.result["style"]["sp_recovered"] == 2
    # Two given back, and the recovery starts a combo chain (next stake 2).
    assert given.outcome.spend == {"points_style": -2, "combo_mise": -2}
    kept = react(six, "sp_keep", now)
    assert kept.outcome.result["style"]["sp_recovered"] == 0 and kept.outcome.spend == {}


def test_a_one_on_the_style_dice_or_a_failure_leaves_nothing_to_decide():
    hero = strengal()
    one = roll_as("d6code", BLADE, hero, [4, 5, 1, 6])  # « un 1 et un 6 se neutralisent »
    assert one.outcome.result["style"]["sp_recoverable"] == 1 and one.outcome.choices
    vetoed = roll_as("d6code", BLADE, hero, [4, 5, 1, 5])  # « un 1 empêche … quoi qu'il
    assert vetoed.outcome.choices is None  # arrive »
    assert vetoed.outcome.spend == {"points_style": 1}
    failed = roll_as("d6code", {**BLADE, "difficulty": 30}, hero, [4, 5, 6, 2])
    assert failed.outcome.choices is None and failed.outcome.spend == {"points_style": 1}


def test_on_a_server_only_the_gm_gives_the_point_back():
    with TableServer(allow_player_dice=True) as server:
        gm = server.client()
        token = gm.add_seat("Lea")["token"]
        gm.set_sheet("Strengal", "d6code", {"competences": {"ARMES BLANCHES": "2D+1"},
                                            "points_style": 1}, owner="Lea")
        lea = server.client("Lea", role="player", token=token)
        out = lea.roll("d6code", BLADE, character="Strengal", dice=[4, 5, 3, 2])
        assert out["open"] and out["default"] == "sp_keep", out
        assert out["sheet"]["points_style"] == 0
        with pytest.raises(SidecarError) as refused:
            lea.react(out, "sp_return")
        assert refused.value.code == "forbidden"
        given = gm.react(out, "sp_return")
        assert given["spent"]["points_style"] == -1 and given["sheet"]["points_style"] == 1
