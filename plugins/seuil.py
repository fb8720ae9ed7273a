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

__version__ = "1.2"  # 1.2: the message is {fr, en}; sheet names and skill levels

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


def minus(text: str) -> str:
    """``text`` with its ASCII hyphen-minus written as the minus sign (−3, not -3)."""
    return text.replace("-", "−")


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
        # (The minus sign, U+2212, as « −2 et 6 » above and the other rulesets write it.)
        "description": label("Facteurs de complication : " + ", ".join(
            f"{v[1]} ({minus(signed(v[0]))})" for v in FACTORS.values()),
            "Complication factors: " + ", ".join(f"{v[2]} ({minus(signed(v[0]))})"
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
    p["characteristic"], p["skills"] = sheet_names(p, sheet)
    return p


def sheet_names(params: dict[str, Any], sheet: dict[str, Any] | None) -> tuple[str, list[str]]:
    """The characteristic and skills a roll names, as the character's sheet has them:
    the characteristic in the sheet's spelling (« physique » → « Physique »), a skill
    named without its level given the sheet's (« Escalade » → « Escalade 5 »: seed 004's
    message lists the skills with their levels). What the sheet does not
    have, or a skill typed with a level, stays as typed (the skills are for information)."""
    characteristic = str(params.get("characteristic") or "")
    skills = [str(skill) for skill in params.get("skills") or ()]
    if not sheet:
        return characteristic, skills
    levels = sheet.get("caracteristiques") or {}
    characteristic = next((name for name in levels
                           if name.casefold() == characteristic.casefold()), characteristic)
    ranks = {name.casefold(): (name, rank)
             for name, rank in (sheet.get("competences") or {}).items()}
    named = []
    for skill in skills:
        found = None if re.search(r"\d\s*$", skill) else ranks.get(skill.strip().casefold())
        named.append(f"{found[0]} {found[1]}" if found else skill)
    return characteristic, named


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


def _skill_text(skill: str, fr: bool = True) -> str:
    match = re.search(r"(-?\d+)\s*$", skill)
    if not match:
        return skill
    rank = rank_name(int(match.group(1)))
    return f"{skill} ({rank if fr else RANKS_EN[rank]})"


#: The message's words, French (the seed's) and English.
WORDS = {
    True: {"action": "Action : ", "characteristic": "Caractéristique utilisée : ",
           "level": "niveau", "score_dice": "Dés de score : ", "complications":
           "Complications : ", "none_f": "aucune", "none_m": "aucun", "others": "autres",
           "complication_dice": "Dés de complication : ", "skills":
           "Compétences et bonus/malus : ", "flat": "Bonus/malus fixe : ", "format":
           "Format du dé : ", "threshold": "Seuil à atteindre : ", "score": "Score : "},
    False: {"action": "Action: ", "characteristic": "Characteristic used: ",
            "level": "level", "score_dice": "Score dice: ", "complications":
            "Complications: ", "none_f": "none", "none_m": "none", "others": "other",
            "complication_dice": "Complication dice: ", "skills": "Skills and bonuses: ",
            "flat": "Flat bonus/malus: ", "format": "Dice format: ", "threshold":
            "Threshold to reach: ", "score": "Score: "},
}


def render_message(p: dict[str, Any], level_used: int, score_faces: list[int],
                   comp_face: int | None, score: int, verdict: dict[str, str],
                   fmt: str | None = None) -> dict[str, str]:
    """The seed's roll message, line by line, ``{fr, en}`` as every text of a result
    (``verdict``: the kind's label in both)."""
    return {lang: _message(p, level_used, score_faces, comp_face, score, verdict[lang],
                           fmt, fr=lang == "fr") for lang in ("fr", "en")}


def _message(p: dict[str, Any], level_used: int, score_faces: list[int],
             comp_face: int | None, score: int, verdict: str, fmt: str | None,
             fr: bool) -> str:
    count, fixed = SCORE_DICE[p["level"]]
    die = COMPLICATION_DIE[level_used]
    fmt = fmt or dice_format(p["level"], level_used, p["flat"])
    head, middle, tail = _message_lines(
        p["action"], p["characteristic"], p["level"], tuple(p["factors"]), p["complication"],
        level_used, tuple(p["skills"]), p["flat"], fmt, p["threshold"], fr)
    words = WORDS[fr]
    score_sum = sum(score_faces)
    return (f"{head}\n{words['score_dice']}{count}D10{f' +{fixed}' if fixed else ''} → "
            f"{', '.join(map(str, score_faces))} = {score_sum + fixed}\n{middle}\n"
            + words["complication_dice"]
            + (f"{'+' if die > 0 else '-'}1D{abs(die)} → {comp_face}" if die
               else words["none_m"])
            + f"\n{tail}\n{words['score']}{score} → {verdict}")


@lru_cache(maxsize=256)
def _message_lines(action: str, characteristic: str, level: int, factors: tuple[str, ...],
                   complication: int, level_used: int, skills: tuple[str, ...], flat: int,
                   fmt: str, threshold: int, fr: bool = True) -> tuple[str, str, str]:
    """The lines of :func:`render_message` that depend on the params only (built once per
    set of params and language): before the score dice, between them and the
    complication die, after."""
    words = WORDS[fr]
    named = [f"{FACTORS[f][1 if fr else 2]} {signed(FACTORS[f][0])}" for f in factors]
    if complication:
        named.append(f"{words['others']} {signed(complication)}")
    threshold_name = next((k for k, v in THRESHOLDS.items() if v == threshold), None)
    if threshold_name and not fr:
        threshold_name = THRESHOLDS_EN[threshold_name]
    head = "\n".join([
        f"{words['action']}{action or '—'}",
        f"{words['characteristic']}{characteristic or '—'} ({words['level']} {level})",
    ])
    middle = (f"{words['complications']}{', '.join(named) or words['none_f']} → "
              f"{words['level']} {level_used}")
    tail = "\n".join([
        words["skills"] + (", ".join(_skill_text(skill, fr) for skill in skills) or "—"),
        f"{words['flat']}{signed(flat)}",
        f"{words['format']}{fmt}",
        f"{words['threshold']}{threshold}" + (f" ({threshold_name})" if threshold_name
                                              else ""),
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
                    message=render_message(p, level_used, faces, comp_face, score,
                                           {"fr": fr, "en": en}, fmt))
    return Outcome(result=result, dice=dice.rolled)


def rolled(params: dict[str, Any], sheet: dict[str, Any] | None = None) -> str:
    """What a roll's line names as rolled, as the other rulesets' lines do: the action,
    the characteristic and skills used after it (« Grimper (Physique, Escalade 5) »);
    empty when the roll names none (the players' own words: no language of their own).
    ``sheet``: the character's, whose spelling and skill levels are used (:func:`sheet_names`)."""
    used = [str(params.get("characteristic") or "")] + [
        str(skill) for skill in params.get("skills") or ()]
    if sheet is not None:
        characteristic, skills = sheet_names(params, sheet)
        used = [characteristic, *skills]
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
    what, label = rolled(roll.params, roll.sheet), roll.label or ""
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
