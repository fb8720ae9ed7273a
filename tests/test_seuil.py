"""Seuil (RULES.md §5): score dice, complication die, threshold, the roll message."""

from __future__ import annotations

import pytest

from sidecar.rulesets.seuil import complication_level, dice_format, rank_name
from tests.rules_helpers import refused, resolve, result


@pytest.mark.parametrize("level,count,fixed", [(1, 1, 0), (2, 2, 0), (3, 3, 0), (4, 2, 10),
                                               (5, 1, 20)])
def test_score_dice_by_level(level, count, fixed):
    resolution = resolve("seuil", [5] * count, level=level, threshold=6)
    assert [d["sides"] for d in resolution.outcome.dice] == [10] * count
    assert resolution.outcome.result["score"] == 5 * count + fixed


@pytest.mark.parametrize("level,sign,sides", [(-2, 1, 4), (-1, 1, 2), (1, -1, 2), (2, -1, 4),
                                              (3, -1, 6), (4, -1, 8), (5, -1, 10),
                                              (6, -1, 12)])
def test_complication_die_by_level(level, sign, sides):
    resolution = resolve("seuil", [5, 5, 2], level=2, complication=level, threshold=6)
    dice = resolution.outcome.dice
    assert dice[-1]["sides"] == sides and dice[-1]["role"] == "complication"
    assert resolution.outcome.result["score"] == 10 + sign * 2


def test_complication_zero_rolls_no_die():
    assert len(resolve("seuil", [5, 5], level=2, threshold=6).outcome.dice) == 2


def test_factors_add_to_the_number_and_clamp():
    assert complication_level(0, ["stress_eleve", "conseille"]) == 2
    assert complication_level(1, ["soul", "blessure_handicapante"]) == 6   # 8 → 6
    assert complication_level(0, ["dope", "conseille"]) == -2              # -4 → -2
    assert complication_level(0, ["stress_bas", "blessure_legere", "vent_fort"]) == 5
    r = result("seuil", [5, 5, 3], level=2, factors=["stress_eleve"], complication=-1,
               threshold=6)
    assert r["complication"] == 2 and r["score"] == 7


def test_flat_bonus_and_malus():
    assert result("seuil", [5, 5], level=2, flat=6, threshold=6)["score"] == 16
    assert result("seuil", [5, 5], level=2, flat=-3, threshold=6)["score"] == 7


@pytest.mark.parametrize("label,value", [("Ridiculement facile", 6), ("Aisé", 13),
                                         ("Moyen", 22), ("Difficile", 31), ("Héroïque", 41)])
def test_threshold_labels(label, value):
    assert result("seuil", [5], level=1, threshold=label)["threshold"] == value


def test_success_kinds():
    assert result("seuil", [6, 7], level=2, threshold=13)["kind"] == "narrow"
    assert result("seuil", [6, 6], level=2, threshold=13)["kind"] == "failure"
    assert result("seuil", [9, 9], level=2, threshold=6)["kind"] == "critical"
    assert result("seuil", [9, 9], level=2, threshold=13)["kind"] == "success"


def test_format_as_the_seed_writes_it():
    assert dice_format(2, 3, 6) == "2D10 -1D6 +6"
    assert dice_format(4, 2, 6) == "2D10 -1D4 +16"
    assert dice_format(1, -2, 0) == "1D10 +1D4"
    assert dice_format(3, 0, -2) == "3D10 -2"


@pytest.mark.parametrize("rank,name", [(0, "Néophyte"), (1, "Apprenti"), (3, "Apprenti"),
                                       (4, "Compagnon"), (7, "Compagnon"), (8, "Expert"),
                                       (12, "Expert"), (13, "Maître"), (20, "Maître")])
def test_skill_ranks(rank, name):
    assert rank_name(rank) == name


def test_rendered_message_follows_the_seed():
    r = result("seuil", [4, 7, 9, 3], level=3, flat=6, factors=["stress_eleve", "conseille"],
               threshold="Moyen", action="crochetage de la porte",
               characteristic="Dextérité", skills=["Crochetage 5"])
    assert r["score"] == 4 + 7 + 9 + 6 - 3 and r["format"] == "3D10 -1D4 +6"
    assert r["message"]["fr"].splitlines() == [
        "Action : crochetage de la porte",
        "Caractéristique utilisée : Dextérité (niveau 3)",
        "Dés de score : 3D10 → 4, 7, 9 = 20",
        "Complications : stress élevé +3, conseillé par un allié -1 → niveau 2",
        "Dés de complication : -1D4 → 3",
        "Compétences et bonus/malus : Crochetage 5 (Compagnon)",
        "Bonus/malus fixe : +6",
        "Format du dé : 3D10 -1D4 +6",
        "Seuil à atteindre : 22 (Moyen)",
        "Score : 23 → Réussite",
    ]
    # The same message in English (one language per reader, as every text of a result).
    assert r["message"]["en"].splitlines() == [
        "Action: crochetage de la porte",
        "Characteristic used: Dextérité (level 3)",
        "Score dice: 3D10 → 4, 7, 9 = 20",
        "Complications: high stress +3, advised by an ally -1 → level 2",
        "Complication dice: -1D4 → 3",
        "Skills and bonuses: Crochetage 5 (Journeyman)",
        "Flat bonus/malus: +6",
        "Dice format: 3D10 -1D4 +6",
        "Threshold to reach: 22 (Average)",
        "Score: 23 → Success",
    ]


def test_the_same_params_rolled_again_give_the_new_dice_in_the_message():
    params = {"level": 3, "flat": 6, "factors": ["stress_eleve", "conseille"], "threshold": 22}
    first = result("seuil", [4, 7, 9, 3], **params)["message"]["fr"].splitlines()
    second = result("seuil", [1, 2, 10, 1], **params)["message"]["fr"].splitlines()
    assert first[2] == "Dés de score : 3D10 → 4, 7, 9 = 20" and first[4].endswith("→ 3")
    assert second[2] == "Dés de score : 3D10 → 1, 2, 10 = 13" and second[4].endswith("→ 1")
    assert second[-1] == "Score : 18 → Échec" and first[:2] == second[:2]


def test_text():
    text = resolve("seuil", [5, 5], level=2, flat=2, threshold=13, label="Escalade").text
    assert text["fr"] == "Aengus — Escalade : 2D10 +2 → 12 contre le seuil 13 → Échec"


@pytest.mark.parametrize("params,param", [
    ({"threshold": 6}, "level"), ({"level": 0, "threshold": 6}, "level"),
    ({"level": 6, "threshold": 6}, "level"), ({"level": 2}, "threshold"),
    ({"level": 2, "threshold": "Facile"}, "threshold"),
    ({"level": 2, "threshold": 6, "flat": "6"}, "flat"),
    ({"level": 2, "threshold": 6, "complication": 2.5}, "complication"),
    ({"level": 2, "threshold": 6, "factors": ["fatigue"]}, "factors"),
    ({"level": 2, "threshold": 6, "factors": "soul"}, "factors"),
    ({"level": 2, "threshold": 6, "action": 3}, "action"),
    ({"level": 2, "threshold": 6, "characteristic": ["x"]}, "characteristic"),
    ({"level": 2, "threshold": 6, "skills": [1]}, "skills"),
])
def test_invalid_params(params, param):
    assert refused("seuil", None, **params).details == {"param": param}
