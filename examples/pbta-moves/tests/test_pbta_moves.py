"""Tests of the pbta_moves ruleset, with vtt-sidecar's kit (``sidecar.testing``): its helpers
resolve rolls through the real pipeline, and its fixtures (``sidecar_client``) start a real
table server with this plugin installed."""

from __future__ import annotations

import pytest

import pbta_moves
from pbta_moves import RULESET
from sidecar import ProtocolError
from sidecar.testing import check_descriptions, check_odds_match_enumeration, odds, resolve


def test_its_descriptions_pass_the_servers_checks():
    described = check_descriptions(pbta_moves)
    assert set(described["rulesets"][RULESET]) == {"dice", "bonus", "target"}


@pytest.mark.parametrize("faces,kind", [([1, 2], "failure"), ([3, 4], "success"),
                                        ([6, 6], "critical")])
def test_a_total_against_the_target(faces, kind):
    outcome = resolve(pbta_moves, RULESET, {"dice": 2, "target": 7}, faces=faces)
    assert outcome["result"]["kind"] == kind
    assert outcome["result"]["total"] == sum(faces)
    assert [die["face"] for die in outcome["dice"]] == faces
    assert outcome["text"]["en"].startswith(f"{faces[0]}+{faces[1]} = {sum(faces)} vs 7")


def test_a_roll_without_a_target_is_refused():
    with pytest.raises(ProtocolError) as refused:
        resolve(pbta_moves, RULESET, {"dice": 2})
    assert refused.value.code == "invalid_params"


def test_exact_odds():
    given = odds(pbta_moves, RULESET, {"dice": 2, "target": 7})
    assert given["p_success"] == pytest.approx(21 / 36)
    assert given["kinds"]["critical"] == pytest.approx(1 / 36)  # 12 only


@pytest.mark.parametrize("params", [{"dice": 1, "target": 4},
                                    {"dice": 2, "bonus": 1, "target": 8},
                                    {"dice": 3, "bonus": -2, "target": 9}])
def test_the_odds_agree_with_every_possible_roll(params):
    check_odds_match_enumeration(pbta_moves, RULESET, params)


def test_a_roll_at_a_live_table(sidecar_client):
    gm = sidecar_client()
    assert RULESET in [ruleset["name"] for ruleset in gm.welcome["rulesets"]]
    outcome = gm.roll(RULESET, {"dice": 2, "target": 7}, dice=[6, 6])
    assert outcome["result"]["kind"] == "critical" and outcome["result"]["total"] == 12
    rolled = gm.roll(RULESET, {"dice": 3, "target": 10})  # the server's own dice
    assert len(rolled["dice"]) == 3
