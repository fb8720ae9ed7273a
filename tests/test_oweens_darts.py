"""O'Ween's darts, the seed's unfinished draft (docs/RULESETS.md): one volley of 3D6 in
three throws for a triple, the FLA roll's successes as +1s, the rerolls decided after each
throw (an open roll), 7 points without a triple; odds exact against the roll code played
through the pipeline."""

from __future__ import annotations

import asyncio
import itertools
from fractions import Fraction

import pytest

from sidecar.rulesets.oweens_darts import volley_policy, volley_triple
from tests.sheet_helpers import PIPELINE, new_sheet, odds_as, roll_as


def react(rolled, choice, dice=None):
    return asyncio.run(PIPELINE.react(rolled.roll, rolled.outcome, choice, dice,
                                      rolled.state))


def test_a_volley_rerolls_the_chosen_dice_until_a_triple_or_the_third_throw():
    # « Durant une volée les lanceurs doivent faire un triple avec 3D6 en 3 lancers. Il est
    # possible de ne pas relancer les dés de son choix. »
    first = roll_as("oweens", {"volley": True}, None, [4, 2, 4])
    out = first.outcome
    assert not out.result["success"] and out.result["volley"]["throw"] == 1
    assert [c["name"] for c in out.choices] == [
        "reroll_1", "reroll_2", "reroll_3", "reroll_12", "reroll_13", "reroll_23",
        "reroll_123", "stop"]
    assert out.default == "reroll_2" and [c["dice"] for c in out.choices][-2:] == [3, 0]
    second = react(first, "reroll_2", [5])
    assert second.outcome.result["volley"]["faces"] == [4, 5, 4]
    assert second.outcome.dice[-1] == {**second.outcome.dice[-1], "face": 5, "throw": 2}
    third = react(second, "reroll_2", [4])
    r = third.outcome.result
    assert r["success"] and r["volley"]["triple"] == 4 and r["volley"]["points"] == 4
    assert r["margin"] == 3 and third.outcome.choices is None
    assert "triple de 4, 4 points" in third.text["fr"]
    # « Si on ne fait pas de triple on gagne 7 points »
    stopped = react(first, "stop")
    assert stopped.outcome.result["volley"]["points"] == 7 and stopped.outcome.choices is None
    last = react(react(first, "reroll_2", [1]), "reroll_2", [2])
    assert last.outcome.result["volley"] == {"faces": [4, 2, 4], "throw": 3, "triple": None,
                                             "points": 7, "bonus_used": 0}
    assert last.outcome.choices is None


def test_the_fla_successes_raise_dice_to_the_lowest_triple_reachable():
    # « Chaque réussite permettra à chaque volée d'ajouter 1 au score d'un dé. »
    done = roll_as("oweens", {"volley": True, "darts_bonus": 2}, None, [3, 2, 3])
    v = done.outcome.result["volley"]
    assert (v["triple"], v["points"], v["bonus_used"]) == (3, 3, 1)
    assert volley_triple([6, 5, 3], 3) is None and volley_triple([6, 5, 3], 4) == 6
    # The default is the best play (fewest expected points: tests/test_oweens_darts_best.py)
    assert volley_policy([2, 5, 3]) == "23" and volley_policy([2, 2, 6]) == "3"
    # As a character, nothing is read from or spent on the sheet.
    as_hero = roll_as("oweens", {"volley": True}, new_sheet("oweens"), [6, 6, 6])
    assert as_hero.outcome.result["volley"]["points"] == 6 and as_hero.outcome.spend == {}


def _played(bonus):
    """Points distribution of a volley played by its default choices, every face drawn,
    through the roll code (states met again are looked up: same faces, same throw)."""
    seen = {}

    def play(rolled):
        volley = rolled.outcome.result["volley"]
        key = (tuple(sorted(volley["faces"])), volley["throw"])
        if key in seen:
            return seen[key]
        if rolled.outcome.choices is None:
            result = {volley["points"]: Fraction(1)}
        else:
            choice = next(c for c in rolled.outcome.choices
                          if c["name"] == rolled.outcome.default)
            result = {}
            for new in itertools.product(range(1, 7), repeat=choice["dice"]):
                for points, p in play(react(rolled, choice["name"], list(new))).items():
                    result[points] = result.get(points, 0) + p / 6 ** choice["dice"]
        seen[key] = result
        return result

    total = {}
    for first in itertools.product(range(1, 7), repeat=3):
        rolled = roll_as("oweens", {"volley": True, "darts_bonus": bonus}, None, list(first))
        for points, p in play(rolled).items():
            total[points] = total.get(points, 0) + p / 216
    return total


@pytest.mark.parametrize("bonus", [0, 2])
def test_volley_odds_are_exact_for_the_volley_played_by_its_defaults(bonus):
    expected = _played(bonus)
    odds = odds_as("oweens", {"volley": True, "darts_bonus": bonus}, None)
    assert odds["p_success"] == pytest.approx(float(1 - expected.get(7, 0)), abs=1e-12)
    values = dict((v, p) for v, p in odds["distribution"]["values"])
    assert values.keys() == expected.keys()
    for points, p in expected.items():
        assert values[points] == pytest.approx(float(p), abs=1e-12)
