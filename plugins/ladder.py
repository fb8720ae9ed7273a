"""The dice-level ladder: the action level picks the dice, keep the best (RULES.md §2).

Dice order: the smaller die first, then the larger (for 2dS, either order); a reroll
(point de chance) consumes a new pair in the same order.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sidecar import hookimpl
from sidecar.dice import DiceSource
from sidecar.model import Outcome, Roll, label
from sidecar.probability import POINT, highest_of, odds_reply
from sidecar.protocol.errors import invalid_param
from sidecar.rules import KIND_LABELS, common, heading, name_params, score_kind

__version__ = "1.0"

NAME = "ladder"

#: level → (smaller die, larger die, tier)
LADDER: dict[int, tuple[int, int, str]] = {
    1: (4, 4, "Débutant"), 2: (4, 6, "Débutant"), 3: (6, 6, "Débutant"),
    4: (6, 8, "Initié"), 5: (8, 8, "Initié"), 6: (8, 10, "Initié"),
    7: (10, 10, "Expert"), 8: (10, 12, "Expert"), 9: (12, 12, "Expert"),
}
#: A success by this much or more is critical (RULES.md §2: differential 7+).
CRITICAL_AT = 7
DIFFICULTIES = {"Facile": 3, "Modéré": 5, "Pas évident": 7, "Difficile": 9,
                "Très difficile": 11, "Presque impossible": 13}

PARAMS: dict[str, dict[str, Any]] = {
    "level": {
        "type": "int", "min": -20, "max": 40, "required": True,
        "description": label("Niveau : caractéristique + métier (déjà additionnés)",
                             "Level: characteristic + profession (already added)"),
    },
    "advantages": {
        "type": "int", "min": 0, "max": 20, "default": 0,
        "description": label("Avantages (+1 niveau chacun)", "Advantages (+1 level each)"),
    },
    "disadvantages": {
        "type": "int", "min": 0, "max": 20, "default": 0,
        "description": label("Désavantages (−1 niveau chacun)",
                             "Disadvantages (−1 level each)"),
    },
    "difficulty": {
        "type": "int", "min": 0, "max": 60, "required": True, "labels": DIFFICULTIES,
        "description": label("Difficulté : score à atteindre, ou Facile, Modéré, Pas évident, "
                             "Difficile, Très difficile, Presque impossible",
                             "Difficulty: score to reach, or one of the labels"),
    },
    "reroll": {
        "type": "bool", "default": False,
        "description": label("Dépenser un point de chance : relancer une fois, le nouveau "
                             "score remplace l'ancien", "Spend a luck point: reroll once, the "
                             "new score replaces the old"),
    },
    "sacrifice_chance": {
        "type": "bool", "default": False,
        "description": label("Sacrifier 1 point de Chance pour réussir (si le jet échoue ; "
                             "Chance ≥ 2)", "Sacrifice 1 Chance point to succeed (if the roll "
                             "fails; Chance ≥ 2)"),
    },
    "chance": {
        "type": "int", "min": 0, "max": 20,
        "description": label("Caractéristique Chance actuelle (pour un sacrifice)",
                             "Current Chance characteristic (for a sacrifice)"),
    },
    "success_at_cost": {
        "type": "bool", "default": False,
        "description": label("« Réussi, mais… » : le MJ accorde la réussite contre un coût",
                             "\"Success, but…\": the GM grants success at a cost"),
    },
}


# Short names the forms show (the web table, a VTT).
name_params(PARAMS, {
    "level": ("Niveau", "Level"),
    "advantages": ("Avantages", "Advantages"),
    "disadvantages": ("Désavantages", "Disadvantages"),
    "difficulty": ("Difficulté", "Difficulty"),
    "reroll": ("Relance (point de chance)", "Reroll (luck point)"),
    "sacrifice_chance": ("Sacrifier 1 point de Chance", "Sacrifice 1 Chance point"),
    "chance": ("Chance actuelle", "Current Chance"),
    "success_at_cost": ("Réussi, mais…", "Success, but…"),
})


def dice_for(level: int) -> tuple[int, int, int, str]:
    """(smaller die, larger die, flat bonus, tier) for an action level; (0, 0, 0,
    "Incapacité") at 0 or below."""
    if level <= 0:
        return 0, 0, 0, "Incapacité"
    if level >= 10:
        return 12, 12, level - 9, "Maître"
    small, large, tier = LADDER[level]
    return small, large, 0, tier


def cost_of(differential: int) -> tuple[str, str]:
    """The cost of a "réussi, mais…" by differential."""
    if differential <= 1:
        return "incident mineur", "minor incident"
    if differential <= 3:
        return "perte mineure", "minor loss"
    return "perte importante", "major loss"


def flourish_of(differential: int) -> tuple[str, str] | None:
    """The optional flourish of a success by differential (None at 0)."""
    if differential == 0:
        return None
    if differential <= 3:
        return "bonus mineur", "minor bonus"
    if differential <= 6:
        return "avantage", "advantage"
    return "avantage important", "major advantage"


def kind_of(score: int, difficulty: int, rescued: bool = False) -> str:
    """The kind of a score: 7+ over is critical, exactly met narrow; a failure rescued by
    "réussi, mais…" or a Chance sacrifice is a narrow success."""
    kind = score_kind(score, difficulty, critical_at=CRITICAL_AT)
    return "narrow" if rescued and kind == "failure" else kind


def judge(score: int, difficulty: int, *, level: int, tier: str,
          success_at_cost: bool = False, sacrificed: bool = False) -> dict[str, Any]:
    """The result of a ladder score against a difficulty."""
    differential = abs(score - difficulty)
    fields: dict[str, Any] = {"score": score, "level": level, "tier": tier,
                              "differential": differential, "difficulty": difficulty,
                              "consequence": None, "chance_sacrificed": sacrificed,
                              "success_at_cost": False}
    if score >= difficulty:
        flourish = flourish_of(differential)
        if flourish:
            fields["consequence"] = {"fr": flourish[0], "en": flourish[1]}
        kind = score_kind(score, difficulty, critical_at=CRITICAL_AT)
        return common(True, score - difficulty, kind, *KIND_LABELS[kind], **fields)
    if sacrificed:
        return common(True, 0, "narrow", "Réussite (Chance sacrifiée)",
                      "Success (Chance sacrificed)", **fields)
    cost = cost_of(differential)
    fields["consequence"] = {"fr": cost[0], "en": cost[1]}
    if success_at_cost:
        fields["success_at_cost"] = True
        if cost[0] == "perte importante":
            fields["loss"] = differential  # HP or items
        return common(True, 0, "narrow", f"Réussi, mais… ({cost[0]})",
                      f"Success, but… ({cost[1]})", **fields)
    return common(False, score - difficulty, "failure", "Échec", "Failure", **fields)


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{
        "name": NAME,
        "title": label("L'échelle des dés — niveau et meilleur dé",
                       "The dice ladder — level and best die"),
        "version": __version__,
        "params": PARAMS,
        "dice_order": label("le plus petit dé puis le plus grand ; une relance ajoute une "
                            "nouvelle paire dans le même ordre", "the smaller die, then the "
                            "larger; a reroll adds a new pair in the same order"),
    }]


def _check(params: dict[str, Any]) -> None:
    if params["sacrifice_chance"]:
        chance = params.get("chance")
        if chance is None:
            raise invalid_param("chance", "is required to sacrifice a Chance point",
                                fr="est obligatoire pour sacrifier un point de Chance")
        if chance < 2:
            raise invalid_param("sacrifice_chance", "only allowed while Chance ≥ 2",
                                fr="permis seulement tant que la Chance est ≥ 2")


@hookimpl
def sidecar_resolve(roll: Roll, dice: DiceSource) -> Outcome:
    p = roll.params
    _check(p)
    level = max(0, p["level"] + p["advantages"] - p["disadvantages"])
    small, large, bonus, tier = dice_for(level)
    score = 0
    if level > 0:
        for attempt in range(2 if p["reroll"] else 1):
            first = dice.roll(small, attempt=attempt + 1)
            second = dice.roll(large, attempt=attempt + 1)
            score = max(first, second) + bonus
            kept = dice.rolled[-2] if first >= second else dice.rolled[-1]
            kept["kept"] = True
        if p["reroll"]:
            for die in dice.rolled[:2]:
                die["replaced"] = True
    failed = score < p["difficulty"]
    result = judge(score, p["difficulty"], level=level, tier=tier,
                   success_at_cost=p["success_at_cost"] and not p["sacrifice_chance"],
                   sacrificed=p["sacrifice_chance"] and failed)
    if bonus:
        result["bonus"] = bonus
    return Outcome(result=result, dice=dice.rolled)


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    r = outcome.result
    fr = locale == "fr"
    small, large, bonus, _ = dice_for(r["level"])
    if r["level"] == 0:
        dice_text = "incapacité, pas de jet" if fr else "incapable, no roll"
    else:
        pair = f"2d{small}" if small == large else f"d{small}/d{large}"
        dice_text = (f"{'meilleur de' if fr else 'best of'} {pair}"
                     + (f" +{bonus}" if bonus else ""))
    line = (f"{heading(roll)}{'niveau' if fr else 'level'} {r['level']} ({r['tier']}), "
            f"{dice_text} → {r['score']} {'contre' if fr else 'vs'} {r['difficulty']} → "
            f"{r['label']['fr' if fr else 'en']}")
    if r.get("consequence") and not r["success_at_cost"]:
        line += f" ({r['consequence']['fr' if fr else 'en']})"
    return line


@lru_cache(maxsize=1024)
def exact_odds(level: int, difficulty: int, rescued: bool) -> dict[str, Any]:
    """Exact odds of a ladder roll. A reroll replaces the score with a new pair's, so it
    does not change them; ``rescued`` (Chance sacrificed or "réussi, mais…") turns every
    failure into a narrow success."""
    small, large, bonus, _ = dice_for(level)
    scores = POINT if level == 0 else highest_of(small, large).shift(bonus)
    kinds = scores.map(lambda score: kind_of(score, difficulty, rescued)).counts
    return odds_reply(kinds, scores.total, "score", scores.counts.items())


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    p = roll.params
    _check(p)
    level = max(0, p["level"] + p["advantages"] - p["disadvantages"])
    return exact_odds(level, p["difficulty"], p["success_at_cost"] or p["sacrifice_chance"])
