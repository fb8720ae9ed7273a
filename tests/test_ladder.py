"""The dice ladder (RULES.md §2)."""

from __future__ import annotations

import pytest

from sidecar.rulesets.ladder import dice_for
from tests.rules_helpers import refused, resolve, result

LADDER = [(1, 4, 4), (2, 4, 6), (3, 6, 6), (4, 6, 8), (5, 8, 8), (6, 8, 10), (7, 10, 10),
          (8, 10, 12), (9, 12, 12)]


@pytest.mark.parametrize("level,small,large", LADDER)
def test_each_level_rolls_its_pair_smaller_first_and_keeps_the_best(level, small, large):
    resolution = resolve("ladder", [small, 1], level=level, difficulty=3)
    dice = resolution.outcome.dice
    assert [d["sides"] for d in dice] == [small, large]
    assert resolution.outcome.result["score"] == small
    assert dice[0]["kept"] and not dice[1].get("kept")
    assert resolve("ladder", [1, large], level=level, difficulty=3).outcome.result["score"] \
        == large


@pytest.mark.parametrize("level,tier", [(0, "Incapacité"), (1, "Débutant"), (3, "Débutant"),
                                        (4, "Initié"), (6, "Initié"), (7, "Expert"),
                                        (9, "Expert"), (10, "Maître"), (15, "Maître")])
def test_tiers(level, tier):
    assert dice_for(level)[3] == tier


def test_level_ten_and_above_add_one_per_level_above_nine():
    assert result("ladder", [5, 12], level=10, difficulty=3)["score"] == 13
    assert result("ladder", [5, 12], level=13, difficulty=3)["score"] == 16


def test_level_zero_rolls_nothing_and_scores_zero_and_negative_is_zero():
    resolution = resolve("ladder", [], level=0, difficulty=3)
    assert resolution.outcome.dice == [] and resolution.outcome.result["score"] == 0
    assert result("ladder", [], level=-3, difficulty=3)["level"] == 0


def test_advantages_and_disadvantages_move_the_level():
    r = result("ladder", [3, 7], level=4, advantages=3, disadvantages=1, difficulty=3)
    assert r["level"] == 6  # best of d8 and d10
    assert resolve("ladder", [3, 7], level=4, advantages=3, disadvantages=1,
                   difficulty=3).outcome.dice[1]["sides"] == 10


@pytest.mark.parametrize("name,value", [("Facile", 3), ("Modéré", 5), ("Pas évident", 7),
                                        ("pas_evident", 7), ("Difficile", 9),
                                        ("Très difficile", 11), ("Presque impossible", 13)])
def test_difficulty_labels(name, value):
    assert result("ladder", [1, 1], level=1, difficulty=name)["difficulty"] == value


def test_score_at_difficulty_is_narrow_success():
    r = result("ladder", [5, 2], level=5, difficulty=5)
    assert r["success"] and r["kind"] == "narrow" and r["margin"] == 0


@pytest.mark.parametrize("score,difficulty,kind,consequence", [
    (9, 9, "narrow", None), (10, 9, "success", "bonus mineur"), (12, 9, "success", "bonus mineur"),
    (13, 9, "success", "avantage"), (15, 9, "success", "avantage"),
    (16, 9, "critical", "avantage important"),
])
def test_success_flourish_by_differential_and_critical_from_seven(score, difficulty, kind,
                                                                  consequence):
    level = 12 + max(0, score - 15)  # best of 2d12 + (level − 9), faces up to 12
    r = result("ladder", [score - (level - 9), 1], level=level, difficulty=difficulty)
    assert r["score"] == score and r["kind"] == kind
    assert (r["consequence"] or {}).get("fr") == consequence
    assert r["differential"] == score - difficulty


@pytest.mark.parametrize("score,cost", [(8, "incident mineur"), (7, "perte mineure"),
                                        (6, "perte mineure"), (5, "perte importante")])
def test_failure_cost_by_differential(score, cost):
    r = result("ladder", [score, 1], level=9, difficulty=9)
    assert r["kind"] == "failure" and r["consequence"]["fr"] == cost
    assert r["margin"] == score - 9


def test_success_at_cost_and_major_loss_equals_differential():
    r = result("ladder", [4, 1], level=9, difficulty=9, success_at_cost=True)
    assert r["success"] and r["success_at_cost"] and r["loss"] == 5
    assert r["label"]["fr"] == "Réussi, mais… (perte importante)"


def test_a_standing_reroll_rerolls_a_failed_pair_and_the_new_score_replaces_it():
    resolution = resolve("ladder", [3, 1, 2, 1], level=7, difficulty=5, reroll=True)
    dice = resolution.outcome.dice
    assert len(dice) == 4 and dice[0]["replaced"] and dice[1]["replaced"]
    r = resolution.outcome.result
    assert r["score"] == 2 and r["first_score"] == 3 and r["rerolled"] and not r["success"]


def test_bug_3_a_standing_reroll_leaves_a_successful_pair_alone():
    """Issue 12, bug 3: level 3 vs 5, dice 6,2 then 1,2 with ``reroll`` gave 2, a failure,
    though the first pair had succeeded. The reroll is for a failed pair only."""
    r = result("ladder", [6, 2], level=3, difficulty=5, reroll=True)
    assert r["score"] == 6 and r["success"] and not r["rerolled"]
    # The second pair is not drawn: giving it is too many faces.
    assert refused("ladder", [6, 2, 1, 2], "bad_dice", level=3, difficulty=5,
                   reroll=True).details["expected"] == 2


def test_sacrificing_chance_makes_a_failed_action_succeed_only_with_chance_two():
    r = result("ladder", [1, 1], level=1, difficulty=9, sacrifice_chance=True, chance=2)
    assert r["success"] and r["chance_sacrificed"]
    r = result("ladder", [9, 1], level=9, difficulty=3, sacrifice_chance=True, chance=3)
    assert r["success"] and not r["chance_sacrificed"]  # not needed, not spent
    assert refused("ladder", [1, 1], level=1, difficulty=9, sacrifice_chance=True,
                   chance=1).details == {"param": "sacrifice_chance"}
    assert refused("ladder", [1, 1], level=1, difficulty=9,
                   sacrifice_chance=True).details == {"param": "chance"}


def test_no_botch_in_this_game():
    assert result("ladder", [1, 1], level=1, difficulty=13)["kind"] == "failure"


def test_text():
    text = resolve("ladder", [3, 7], level=6, difficulty="Pas évident", label="Crochetage").text
    assert text["fr"] == ("Aengus — Crochetage : niveau 6 (Initié), meilleur de d8/d10 → 7 "
                          "contre 7 → Réussite de justesse")


@pytest.mark.parametrize("params,param", [
    ({"difficulty": 3}, "level"), ({"level": 41, "difficulty": 3}, "level"),
    ({"level": 2}, "difficulty"), ({"level": 2, "difficulty": "Impossible"}, "difficulty"),
    ({"level": 2, "difficulty": 3, "advantages": -1}, "advantages"),
    ({"level": 2, "difficulty": 3, "disadvantages": "x"}, "disadvantages"),
    ({"level": 2, "difficulty": 3, "reroll": "yes"}, "reroll"),
    ({"level": 2, "difficulty": 3, "chance": 21}, "chance"),
    ({"level": 2, "difficulty": 3, "sacrifice_chance": 1}, "sacrifice_chance"),
    ({"level": 2, "difficulty": 3, "success_at_cost": None, "x": 1}, "x"),
])
def test_invalid_params(params, param):
    assert refused("ladder", None, **params).details == {"param": param}
