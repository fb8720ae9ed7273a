"""Skill codes ND+M with twin dice and style (RULES.md §4), seed examples included."""

from __future__ import annotations

import pytest

from sidecar.rulesets.d6code import extreme_recovery, parse_code
from tests.rules_helpers import refused, resolve, result


@pytest.mark.parametrize("code,parsed", [("4D+3", (4, 3)), ("3d", (3, 0)), ("2D-1", (2, -1)),
                                         (" 5 d + 12 ", (5, 12))])
def test_code_parsing(code, parsed):
    assert parse_code(code) == parsed


def test_sum_plus_m_plus_modifier():
    r = result("d6code", [3, 4, 5], code="3D+2", modifier=1, difficulty=15)
    assert r["score"] == 15 and r["kind"] == "narrow" and r["margin"] == 0


@pytest.mark.parametrize("label,value", [("Facile", 10), ("Moyen", 15), ("Difficile", 20),
                                         ("Très difficile", 25), ("Héroïque", 30)])
def test_difficulty_labels(label, value):
    assert result("d6code", [1], code="1D", difficulty=label)["difficulty"] == value


def test_critical_at_ten_over_and_failure():
    assert result("d6code", [6, 6, 6], code="3D+2", difficulty=10)["kind"] == "critical"
    r = result("d6code", [1, 1], code="2D", difficulty=10)
    assert r["kind"] == "failure" and r["margin"] == -8


def test_seed_opposed_example():
    """Strengal 3D+5 rolls 11 → 16; Krull 4D+1 rolls 13 → 14: Strengal wins."""
    r = result("d6code", [3, 4, 4, 2, 3, 4, 4], code="3D+5", opponent="4D+1")
    assert r["score"] == 16 and r["opposed"]["score"] == 14
    assert r["opposed"]["winner"] == "roller" and r["success"] and r["margin"] == 2


def test_seed_opposed_with_difficulty_example():
    """Difficulty 20, handling +3: Strengal 4D+3 rolls 13 → 19 (fails), Krull 5D 18 → 21."""
    r = result("d6code", [3, 3, 3, 4, 3, 3, 4, 4, 4], code="4D+3", modifier=3,
               difficulty="Difficile", opponent="5D", opponent_modifier=3)
    assert r["score"] == 19 and r["opposed"]["score"] == 21
    assert r["opposed"]["winner"] == "opponent" and not r["success"]


def test_opposed_draw_and_nobody_reaches_the_difficulty():
    r = result("d6code", [4, 3], code="1D", opponent="1D+1")
    assert r["opposed"]["winner"] == "draw" and r["kind"] == "narrow"
    r = result("d6code", [4, 5], code="1D", opponent="1D", difficulty=10)
    assert r["opposed"]["winner"] == "nobody" and not r["success"]
    r = result("d6code", [6, 2], code="1D+4", opponent="1D", difficulty=10)
    assert r["opposed"]["winner"] == "roller" and r["margin"] == 0


def test_seed_twin_dice_example():
    """4D+3, handling +3: normal dice 7, twins 4-4 → reroll 6 → 7 + 8 + 6 + 3 + 3 = 27."""
    resolution = resolve("d6code", [3, 4, 4, 4, 2, 4], code="4D+3", modifier=3, twin=True,
                         difficulty=20)
    r = resolution.outcome.result
    assert r["score"] == 27 and r["twin"]["state"] == "double" and r["twin"]["reroll"] == [2, 4]
    assert [d["role"] for d in resolution.outcome.dice] == [
        "normal", "normal", "twin", "twin", "twin_reroll", "twin_reroll"]


def test_double_ones_reroll_too_and_reroll_is_plain():
    r = result("d6code", [1, 1, 3, 3], code="2D", twin=True, difficulty=5)
    assert r["twin"]["state"] == "double" and r["score"] == 1 + 1 + 3 + 3  # no second reroll


def test_twin_normal_and_fiasco():
    r = result("d6code", [5, 2, 6], code="3D", twin=True, difficulty=5)
    assert r["twin"]["state"] == "normal" and r["score"] == 13
    r = result("d6code", [5, 1, 6], code="3D", twin=True, difficulty=5)
    assert r["twin"]["state"] == "fiasco" and r["score"] == 6 and r["twin"]["total"] == 1


def test_twin_fiasco_on_a_failed_roll_is_a_botch_not_on_a_success():
    assert result("d6code", [2, 1, 6], code="3D", twin=True, difficulty=10)["kind"] == "botch"
    assert result("d6code", [6, 1, 6], code="3D", twin=True, difficulty=6)["kind"] == "success"


def test_twin_needs_two_dice():
    assert refused("d6code", [3], code="1D", twin=True, difficulty=5).details == {
        "param": "twin"}


def test_seed_extreme_style_example():
    """Strengal 2D+1, extreme style: 9 on the 2D, style 1 and 5 → 16; Krull 4D+2 rolls 13
    → 15: Strengal wins; the 1 means no SP is recovered."""
    r = result("d6code", [4, 5, 1, 5, 3, 3, 3, 4], code="2D+1", style="extreme",
               opponent="4D+2")
    assert r["score"] == 16 and r["opposed"]["score"] == 15 and r["success"]
    assert r["style"]["sp_recovered"] == 0


@pytest.mark.parametrize("faces,success,recovered", [
    ([1, 5], True, 0), ([6, 3], True, 2), ([1, 6], True, 1), ([3, 4], True, 1),
    ([6, 6], False, 0), ([3, 4], False, 0),
])
def test_extreme_recovery(faces, success, recovered):
    assert extreme_recovery(faces, success) == recovered


def test_combo_doubles_the_stake():
    r = result("d6code", [6, 6, 6, 3], code="2D", style="extreme", combo=2, difficulty=5)
    assert r["style"]["sp_recovered"] == 4
    assert refused("d6code", [6], code="1D", combo=2, difficulty=5).details == {"param": "combo"}


def test_free_style_adds_dice_and_leaves_recovery_to_the_gm():
    r = result("d6code", [3, 2, 2], code="1D", style="libre", difficulty=7)
    assert r["score"] == 7 and r["style"]["sp_recovered"] is None and r["style"]["gm_may_return"]


def test_surcompetence_auto_and_double():
    resolution = resolve("d6code", [], code="3D", surcompetence="auto", difficulty=30)
    assert resolution.outcome.dice == [] and resolution.outcome.result["success"]
    r = result("d6code", [3, 4], code="2D+1", surcompetence="double", difficulty=15)
    assert r["score"] == 16 and r["doubled"]


def test_bug_4_a_style_point_goes_with_an_automatic_success():
    """Issue 12, bug 4: « il [est] par contre possible d'utiliser à la fois un Point de
    Style et un Point de SurCompétence pour une même action » — refused as "pointless"
    before. The style dice still decide what extreme style gives back."""
    resolution = resolve("d6code", [6, 3], code="3D", surcompetence="auto", style="extreme",
                         difficulty=30)
    r = resolution.outcome.result
    assert r["success"] and r["automatic"] and r["score"] is None
    assert r["style"]["faces"] == [6, 3] and r["style"]["sp_recovered"] == 2
    assert [d["role"] for d in resolution.outcome.dice] == ["style", "style"]
    assert "style extrême 6+3" in resolution.text["fr"]
    free = result("d6code", [1, 1], code="3D", surcompetence="auto", style="libre",
                  difficulty=30)
    assert free["style"]["gm_may_return"] and free["style"]["sp_recovered"] is None


def test_sp_and_sc_combine():
    r = result("d6code", [3, 4, 1, 2], code="2D", style="libre", surcompetence="double",
               difficulty=20)
    assert r["score"] == 20


def test_dice_order_normal_twins_rerolls_style_then_opponent():
    resolution = resolve("d6code", [2, 3, 3, 5, 5, 6, 1, 4], code="3D", twin=True,
                         style="libre", opponent="1D")
    assert [d["role"] for d in resolution.outcome.dice] == [
        "normal", "twin", "twin", "twin_reroll", "twin_reroll", "style", "style", "opponent"]
    assert resolution.outcome.result["score"] == 2 + 3 + 3 + 5 + 5 + 6 + 1


def test_text():
    text = resolve("d6code", [3, 4, 4, 4, 2, 4], code="4d+3", modifier=3, twin=True,
                   difficulty=20, label="Pilotage").text
    assert text["fr"] == ("Aengus — Pilotage : 4D+3 +3, jumeaux 4-4 relancés (6) → 27 contre 20 "
                          "→ Réussite")


@pytest.mark.parametrize("params,param", [
    ({"difficulty": 5}, "code"), ({"code": "4x", "difficulty": 5}, "code"),
    ({"code": "0D", "difficulty": 5}, "code"), ({"code": "31D", "difficulty": 5}, "code"),
    ({"code": "2D"}, "difficulty"), ({"code": "2D", "difficulty": "Dur"}, "difficulty"),
    ({"code": "2D", "difficulty": 5, "modifier": "+3"}, "modifier"),
    ({"code": "2D", "difficulty": 5, "twin": "true"}, "twin"),
    ({"code": "2D", "difficulty": 5, "style": "baroque"}, "style"),
    ({"code": "2D", "difficulty": 5, "surcompetence": "triple"}, "surcompetence"),
    ({"code": "2D", "difficulty": 5, "opponent": "beaucoup"}, "opponent"),
    ({"code": "2D", "difficulty": 5, "opponent_modifier": 500}, "opponent_modifier"),
    ({"code": "2D", "difficulty": 5, "combo": 0}, "combo"),
])
def test_invalid_params(params, param):
    assert refused("d6code", None, **params).details == {"param": param}


def test_ruling_surcompetence_doubles_the_whole_result_modifiers_included():
    """Kept (issue 12 review): the seed doubles « des jets dont les résultats seront
    multipliés par 2 », and calls the total with M a result: « un résultat de 16
    (9+6+1) », « son résultat de 15 (13+2) »."""
    r = result("d6code", [3, 4], code="2D+1", modifier=2, surcompetence="double",
               difficulty=20)
    assert r["score"] == (3 + 4 + 1 + 2) * 2 and r["success"] and r["kind"] == "narrow"


def test_ruling_superieur_au_score_requis_means_reaching_it():
    """Kept (issue 12 review): « Difficile, le score à atteindre est 20 » — reaching the
    difficulty is enough, in an opposed roll as alone (« supérieur » read as ≥)."""
    alone = result("d6code", [6, 6, 5], code="3D+3", difficulty=20)
    assert alone["success"] and alone["margin"] == 0
    opposed = result("d6code", [6, 6, 5, 6, 6, 6], code="3D+3", opponent="3D",
                     difficulty=20)  # 20 reached; the opponent's 18 misses it
    assert opposed["opposed"]["winner"] == "roller" and opposed["success"]
