"""Seuil : dés de score contre un seuil / score dice against a threshold.

Dice order: the score dice, then the complication die.

Character sheet (:data:`SHEET`): characteristic levels, skill ranks, light and crippling
wounds, stress. Rolled as a character, the level is the named characteristic's and the
character's stress and wounds join the complication factors; the seed has no roll spend
anything (wounds and stress are the GM's to change).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from sidecar import hookimpl
from sidecar.dice import Dice
from sidecar.model import Outcome, Roll, label
from sidecar.probability import add, die, negate, odds_reply, sum_of
from sidecar.protocol.errors import invalid_param
from sidecar.protocol.text import heading
from sidecar.rules import KIND_LABELS, common, name_params, score_kind, signed, who
from sidecar.rulesets.sheets import (
    counter,
    field,
    pick,
    refuse_sheet_param,
    required_without_sheet,
)

__version__ = "1.1"

NAME = "seuil"

#: level → (number of d10, fixed bonus)
SCORE_DICE = {1: (1, 0), 2: (2, 0), 3: (3, 0), 4: (2, 10), 5: (1, 20)}
#: complication level → signed complication die (0: none)
COMPLICATION_DIE = {-2: 4, -1: 2, 0: 0, 1: -2, 2: -4, 3: -6, 4: -8, 5: -10, 6: -12}
FACTORS = {
    "stress_bas": (1, "stress bas", "low stress"),
    "stress_eleve": (3, "stress élevé", "high stress"),
    "blessure_legere": (2, "blessure légère", "light wound"),
    "blessure_handicapante": (4, "blessure handicapante", "crippling wound"),
    "soul": (3, "soûl", "drunk"),
    "vent_fort": (2, "vent fort en escalade", "strong wind while climbing"),
    "conseille": (-1, "conseillé par un allié", "advised by an ally"),
    "dope": (-3, "dopé", "doped"),
}
THRESHOLDS = {"Ridiculement facile": 6, "Aisé": 13, "Moyen": 22, "Difficile": 31,
              "Héroïque": 41}
RANKS = [(13, "Maître"), (8, "Expert"), (4, "Compagnon"), (1, "Apprenti"), (0, "Néophyte")]
#: English names of the thresholds and ranks, for English texts (the seed's French names
#: stay those a request may send and the French texts say; docs/RULESETS.md records both).
THRESHOLDS_EN = {"Ridiculement facile": "Ridiculously easy", "Aisé": "Easy",
                 "Moyen": "Average", "Difficile": "Hard", "Héroïque": "Heroic"}
RANKS_EN = {"Maître": "Master", "Expert": "Expert", "Compagnon": "Journeyman",
            "Apprenti": "Apprentice", "Néophyte": "Neophyte"}

PARAMS: dict[str, dict[str, Any]] = {
    "level": {
        "type": "int", "min": 1, "max": 5,
        "description": label("Niveau de la caractéristique (1 à 5 ; obligatoire sans "
                             "personnage, sinon celui de la caractéristique nommée)",
                             "Characteristic level (1 to 5; required without a character, "
                             "else the named characteristic's)"),
    },
    "flat": {
        "type": "int", "min": -100, "max": 100, "default": 0,
        "description": label("Bonus/malus fixe (compétences, aspects)",
                             "Flat bonus/malus (skills, aspects)"),
    },
    "complication": {
        "type": "int", "min": -20, "max": 20, "default": 0,
        "description": label("Niveau de complication (s'ajoute aux facteurs ; ramené entre "
                             "−2 et 6)", "Complication level (added to the factors; clamped "
                             "to −2…6)"),
    },
    "factors": {
        "type": "list", "choices": list(FACTORS), "default": [], "max_items": 20,
        "choice_labels": {key: {"fr": fr, "en": en} for key, (_, fr, en) in FACTORS.items()},
        "description": label("Facteurs de complication : " + ", ".join(
            f"{v[1]} ({signed(v[0])})" for v in FACTORS.values()),
            "Complication factors: " + ", ".join(f"{v[2]} ({signed(v[0])})"
                                                  for v in FACTORS.values())),
    },
    "threshold": {
        "type": "int", "min": 0, "max": 200, "required": True, "labels": THRESHOLDS,
        "label_names": {name: {"fr": name, "en": THRESHOLDS_EN[name]} for name in THRESHOLDS},
        "description": label("Seuil : nombre, ou Ridiculement facile 6, Aisé 13, Moyen 22, "
                             "Difficile 31, Héroïque 41", "Threshold: a number: " + ", ".join(
                                 f"{THRESHOLDS_EN[name]} {value}"
                                 for name, value in THRESHOLDS.items())),
    },
    "action": {
        "type": "string", "default": "", "max_length": 200,
        "description": label("Action (pour le message)", "Action (for the message)"),
    },
    "characteristic": {
        "type": "string", "default": "", "max_length": 100,
        "description": label("Caractéristique utilisée (pour le message ; en tant que "
                             "personnage, son niveau est lu sur la fiche)",
                             "Characteristic used (for the message; as a character, its "
                             "level is read from the sheet)"),
    },
    "skills": {
        "type": "list", "default": [], "max_items": 20,
        "description": label("Compétences et bonus/malus, pour information (ex. "
                             "« Escalade 5 »)", "Skills and bonuses, for information (e.g. "
                             "\"Climbing 5\")"),
    },
}


# Short names the forms show (the web table, a VTT).
name_params(PARAMS, {
    "level": ("Niveau", "Level"),
    "flat": ("Bonus/malus", "Flat bonus"),
    "complication": ("Complication", "Complication"),
    "factors": ("Facteurs de complication", "Complication factors"),
    "threshold": ("Seuil", "Threshold"),
    "action": ("Action", "Action"),
    "characteristic": ("Caractéristique", "Characteristic"),
    "skills": ("Compétences", "Skills"),
})

# What a form shows at once is what a roll needs (the level or the characteristic, the
# fixed bonus, the threshold); the complications of the moment and what is written only in
# the message fold behind « plus d'options » (``more``), which says how many are set.
for _key in ("complication", "factors", "action", "skills"):
    PARAMS[_key]["more"] = True

#: The character sheet of Seuil (RULES.md §5; seed 004).
SHEET: dict[str, dict[str, Any]] = {
    "caracteristiques": field(
        "map", "Caractéristiques", "Characteristics", "Niveau de chaque caractéristique "
        "(1 à 5)", "Each characteristic's level (1 to 5)", values="int", default={},
        item={"min": 1, "max": 5}, max_items=20),
    "competences": field(
        "map", "Compétences", "Skills", "Rang de chaque compétence (Néophyte 0, Apprenti "
        "1–3, Compagnon 4–7, Expert 8–12, Maître 13+)", "Each skill's rank (Neophyte 0, "
        "Apprentice 1–3, Journeyman 4–7, Expert 8–12, Master 13+)", values="int", default={},
        item={"min": 0, "max": 30}, max_items=50),
    "blessures_legeres": counter(
        "Blessures légères", "Light wounds", "Blessures légères : +2 de complication "
        "chacune", "Light wounds: +2 complication each", default=0, high=10,
        resource=False),
    "blessures_handicapantes": counter(
        "Blessures handicapantes", "Crippling wounds", "Blessures handicapantes : +4 de "
        "complication chacune", "Crippling wounds: +4 complication each", default=0,
        high=10, resource=False),
    "stress": counter(
        "Stress", "Stress", "Niveau de stress : 0 aucun, 1 bas (+1 de complication), 2 "
        "élevé (+3)", "Stress level: 0 none, 1 low (+1 complication), 2 high (+3)",
        default=0, high=2, resource=False),
}

#: Sheet counter → the complication factor each unit of it adds (stress: by level).
WOUND_FACTORS = {"blessures_legeres": "blessure_legere",
                 "blessures_handicapantes": "blessure_handicapante"}
STRESS_FACTORS = {1: "stress_bas", 2: "stress_eleve"}


@hookimpl
def sidecar_sheet(ruleset: str) -> dict[str, Any] | None:
    return SHEET if ruleset == NAME else None


def sheet_factors(factors: list[str], sheet: dict[str, Any]) -> list[str]:
    """The character's stress and wounds as complication factors, after the request's
    own; a kind of factor the request already names is the request's (it wins)."""
    added = []
    stress = STRESS_FACTORS.get(sheet.get("stress") or 0)
    if stress and not {"stress_bas", "stress_eleve"} & set(factors):
        added.append(stress)
    for counter_name, factor in WOUND_FACTORS.items():
        if factor not in factors:
            added += [factor] * (sheet.get(counter_name) or 0)
    return list(factors) + added


def effective(roll: Roll) -> dict[str, Any]:
    """The roll's params with what the character's sheet gives: the level of the named
    characteristic (unless the request gives one), stress and wounds as factors."""
    p, sheet = roll.params, roll.sheet
    if sheet is None:
        if p.get("level") is None:
            raise required_without_sheet("level")
        return p
    p = dict(p)
    if p.get("level") is None:
        if not p.get("characteristic"):
            raise invalid_param("characteristic", "name the sheet's characteristic (or give "
                                "the level)", fr="nommez la caractéristique de la fiche (ou "
                                "indiquez le niveau)")
        p["level"] = pick(sheet, "caracteristiques", p["characteristic"], "characteristic")
    p["factors"] = sheet_factors(p["factors"], sheet)
    return p


def rank_name(rank: int) -> str:
    """The skill rank's name: Néophyte 0, Apprenti 1–3, Compagnon 4–7, Expert 8–12,
    Maître 13+."""
    return next(name for floor, name in RANKS if rank >= floor)


def complication_level(complication: int, factors: list[str]) -> int:
    """The complication level used: the number plus the factors, clamped to −2…6."""
    level = complication + sum(FACTORS[f][0] for f in factors)
    return max(-2, min(6, level))


def dice_format(level: int, complication: int, flat: int) -> str:
    """``"2D10 -1D4 +6"``: the roll as the seed writes it (fixed bonuses folded in)."""
    count, fixed = SCORE_DICE[level]
    parts = [f"{count}D10"]
    die = COMPLICATION_DIE[complication]
    if die:
        parts.append(f"{'+' if die > 0 else '-'}1D{abs(die)}")
    if fixed + flat:
        parts.append(signed(fixed + flat))
    return " ".join(parts)


def _skill_text(skill: str) -> str:
    match = re.search(r"(-?\d+)\s*$", skill)
    return f"{skill} ({rank_name(int(match.group(1)))})" if match else skill


def render_message(p: dict[str, Any], level_used: int, score_faces: list[int],
                   comp_face: int | None, score: int, verdict: str,
                   fmt: str | None = None) -> str:
    """The seed's roll message, line by line."""
    count, fixed = SCORE_DICE[p["level"]]
    die = COMPLICATION_DIE[level_used]
    fmt = fmt or dice_format(p["level"], level_used, p["flat"])
    head, middle, tail = _message_lines(
        p["action"], p["characteristic"], p["level"], tuple(p["factors"]), p["complication"],
        level_used, tuple(p["skills"]), p["flat"], fmt, p["threshold"])
    score_sum = sum(score_faces)
    return (f"{head}\nDés de score : {count}D10{f' +{fixed}' if fixed else ''} → "
            f"{', '.join(map(str, score_faces))} = {score_sum + fixed}\n{middle}\n"
            "Dés de complication : "
            + (f"{'+' if die > 0 else '-'}1D{abs(die)} → {comp_face}" if die else "aucun")
            + f"\n{tail}\nScore : {score} → {verdict}")


@lru_cache(maxsize=256)
def _message_lines(action: str, characteristic: str, level: int, factors: tuple[str, ...],
                   complication: int, level_used: int, skills: tuple[str, ...], flat: int,
                   fmt: str, threshold: int) -> tuple[str, str, str]:
    """The lines of :func:`render_message` that depend on the params only (built once per
    set of params): before the score dice, between them and the complication die, after."""
    named = [f"{FACTORS[f][1]} {signed(FACTORS[f][0])}" for f in factors]
    if complication:
        named.append(f"autres {signed(complication)}")
    threshold_name = next((k for k, v in THRESHOLDS.items() if v == threshold), None)
    head = "\n".join([
        f"Action : {action or '—'}",
        f"Caractéristique utilisée : {characteristic or '—'} (niveau {level})",
    ])
    middle = f"Complications : {', '.join(named) or 'aucune'} → niveau {level_used}"
    tail = "\n".join([
        "Compétences et bonus/malus : " + (", ".join(_skill_text(skill) for skill in skills)
                                         or "—"),
        f"Bonus/malus fixe : {signed(flat)}",
        f"Format du dé : {fmt}",
        f"Seuil à atteindre : {threshold}" + (f" ({threshold_name})" if threshold_name else ""),
    ])
    return head, middle, tail


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{
        "name": NAME,
        "title": label("Seuil — dés de score et complications",
                       "Seuil — score dice and complications"),
        "version": __version__,
        "params": PARAMS,
        "dice_order": label("les dés de score, puis le dé de complication",
                            "the score dice, then the complication die"),
    }]


@hookimpl
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome:
    # A player may type only the level its sheet gives (docs/RULESETS.md).
    refuse_sheet_param(roll, "level", PARAMS["level"]["label"], "characteristic",
                       lambda params: pick(roll.sheet or {}, "caracteristiques",
                                           params["characteristic"], "characteristic"),
                       offered="caracteristiques")
    p = effective(roll)
    count, fixed = SCORE_DICE[p["level"]]
    faces = dice.roll_many(count, 10, role="score")
    level_used = complication_level(p["complication"], p["factors"])
    die = COMPLICATION_DIE[level_used]
    comp_face = dice.roll(abs(die), role="complication") if die else None
    score = sum(faces) + fixed + p["flat"] + ((comp_face or 0) * (1 if die > 0 else -1))
    kind = score_kind(score, p["threshold"])
    fr, en = KIND_LABELS[kind]
    fmt = dice_format(p["level"], level_used, p["flat"])
    result = common(kind != "failure", score - p["threshold"], kind, fr, en, score=score,
                    complication=level_used, threshold=p["threshold"], format=fmt,
                    level=p["level"], factors=list(p["factors"]),
                    message=render_message(p, level_used, faces, comp_face, score, fr, fmt))
    return Outcome(result=result, dice=dice.rolled)


def rolled(params: dict[str, Any]) -> str:
    """What a roll's line names as rolled, as the other rulesets' lines do: the action,
    the characteristic and skills used after it (« Grimper (Physique, Escalade 5) »);
    empty when the roll names none (the players' own words: no language of their own)."""
    used = [str(params.get("characteristic") or "")] + [
        str(skill) for skill in params.get("skills") or ()]
    used = [item for item in used if item]
    action = str(params.get("action") or "")
    if not used:
        return action
    return f"{action} ({', '.join(used)})" if action else ", ".join(used)


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    r = outcome.result
    fr = locale == "fr"
    # The roll's label, then what was rolled (once, when the label already says it).
    what, label = rolled(roll.params), roll.label or ""
    title = label if not what or what == label else f"{label}, {what}" if label else what
    return (f"{heading(who(roll), title, locale=locale)}{r['format']} → {r['score']} "
            f"{'contre le seuil' if fr else 'vs threshold'} {r['threshold']} → "
            f"{r['label']['fr' if fr else 'en']}")


@lru_cache(maxsize=1024)
def exact_odds(level: int, shift: int, complication: int, threshold: int) -> dict[str, Any]:
    """Exact odds: the score dice's sum, shifted, plus or minus the complication die."""
    count, fixed = SCORE_DICE[level]
    scores = sum_of(count, 10).shift(fixed + shift)
    sides = COMPLICATION_DIE[complication]
    if sides:
        scores = add(scores, die(abs(sides)) if sides > 0 else negate(die(abs(sides))))
    kinds = scores.map(lambda score: score_kind(score, threshold)).counts
    return odds_reply(kinds, scores.total, "score", scores.counts.items())


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    p = effective(roll)
    return exact_odds(p["level"], p["flat"], complication_level(p["complication"],
                                                                p["factors"]), p["threshold"])
