"""Tests of the PbtA moves, with vtt-sidecar's kit (``sidecar.testing``): its helpers resolve
rolls through the real pipeline, and its fixtures start a real table server with this
plugin installed."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import pytest
from sidecar import ProtocolError
from sidecar.testing import (
    check_descriptions,
    check_odds_match_enumeration,
    enumerate_rolls,
    odds,
    resolve,
)

import pbta_moves
from pbta_moves import RULESET


def test_its_descriptions_pass_the_servers_checks():
    described = check_descriptions(pbta_moves)
    assert set(described["rulesets"][RULESET]) == {"stat", "forward", "advanced", "move"}
    assert described["sheets"] == {} and described["options"] is None


@pytest.mark.parametrize("faces,stat,kind,total", [
    ([1, 5], 0, "failure", 6), ([1, 5], 1, "narrow", 7), ([4, 5], 0, "narrow", 9),
    ([4, 5], 1, "success", 10), ([6, 6], 3, "success", 15), ([2, 3], -2, "failure", 3)])
def test_the_three_bands(faces, stat, kind, total):
    outcome = resolve(pbta_moves, RULESET, {"stat": stat}, faces=faces)
    result = outcome["result"]
    assert (result["kind"], result["total"]) == (kind, total)
    assert result["success"] is (kind != "failure") and result["margin"] == total - 7
    assert [die["face"] for die in outcome["dice"]] == faces


def test_an_advanced_move_is_a_critical_from_12():
    params = {"stat": 2, "advanced": True, "move": "Défier le danger"}
    outcome = resolve(pbta_moves, RULESET, params, faces=[5, 5])
    assert outcome["result"]["kind"] == "critical"
    assert outcome["text"]["fr"].endswith(" — Défier le danger : (5+5) +2 = 12 → Réussite critique")
    assert outcome["text"]["en"].endswith(" — Défier le danger: (5+5) +2 = 12 → Critical success")
    plain = resolve(pbta_moves, RULESET, {"stat": 2}, faces=[5, 5])
    assert plain["result"]["kind"] == "success"


def test_forward_adds_to_the_stat():
    outcome = resolve(pbta_moves, RULESET, {"stat": 1, "forward": -2}, faces=[4, 4])
    assert outcome["result"]["total"] == 7 and outcome["result"]["modifier"] == -1


@pytest.mark.parametrize("params,field", [({"stat": 5}, "stat"), ({"stat": "+1"}, "stat"),
                                          ({"advanced": "yes"}, "advanced")])
def test_bad_params_are_refused_naming_the_field(params, field):
    with pytest.raises(ProtocolError) as refused:
        resolve(pbta_moves, RULESET, params)
    assert refused.value.code == "invalid_params" and field in refused.value.message


def test_the_wrong_number_of_dice_is_refused():
    with pytest.raises(ProtocolError) as refused:
        resolve(pbta_moves, RULESET, {}, faces=[4])
    assert refused.value.code == "bad_dice"


def test_the_classic_odds_of_a_plus_zero_move():
    # 2d6: 10+ in 6 of 36, 7–9 in 15, 6- in 15.
    rolls = enumerate_rolls(pbta_moves, RULESET, {"stat": 0}, of="total")
    assert rolls.kinds == {"success": Fraction(6, 36), "narrow": Fraction(15, 36),
                           "failure": Fraction(15, 36)}
    assert rolls.sequences == 36 and rolls.values[7] == Fraction(6, 36)
    given = odds(pbta_moves, RULESET, {"stat": 0})
    assert given["kinds"]["success"] == pytest.approx(1 / 6)
    assert given["p_success"] == pytest.approx(21 / 36)


@pytest.mark.parametrize("params", [{"stat": -3}, {"stat": 1}, {"stat": 3, "forward": 1},
                                    {"stat": 2, "advanced": True},
                                    {"stat": 4, "forward": 5, "advanced": True}])
def test_the_odds_agree_with_every_possible_roll(params):
    check_odds_match_enumeration(pbta_moves, RULESET, params)


def test_a_move_at_a_live_table(sidecar_client):
    gm = sidecar_client()
    listed = next(r for r in gm.welcome["rulesets"] if r["name"] == RULESET)
    assert listed["params"]["stat"]["max"] == 4
    player = sidecar_client("Alice", role="player")
    outcome = gm.roll(RULESET, {"stat": 1, "move": "Lire une situation"}, dice=[3, 5])
    assert outcome["result"]["kind"] == "narrow"
    seen = player.next_event()
    while seen.get("type") != "outcome":
        seen = player.next_event()
    assert seen["seq"] == outcome["seq"] and seen["text"] == "MJ — Lire une situation : "\
        "(3+5) +1 = 9 → Réussite partielle"


def test_the_command_line_rolls_it_at_the_live_table(sidecar_server):
    done = subprocess.run(
        [sys.executable, "-m", "sidecar", "roll", RULESET, "stat=2", "--url",
         sidecar_server.url, "--table", "test", "--role", "gm", "--token",
         sidecar_server.gm_token, "--dice", "6,4", "--locale", "en"],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "(6+4) +2 = 12 → Full success" in done.stdout
