"""L'échelle de dés : le niveau choisit les dés / the dice ladder: the level picks the dice.

Dice order: the smaller die first, then the larger (for 2dS, either order); a reroll
(point de chance) consumes a new pair in the same order.

Luck is decided after the dice (the seed: « Utiliser un point de chance permet de relancer
le jet d'une action »): a failed pair opens the roll (contract §7) with the choices
``reroll`` (a new pair that replaces the score even if worse) and ``sacrifice`` (the
action succeeds), each a point of the Chance score and only while Chance ≥ 2 (the seed's
« points de chance » are that score's: « un personnage dont le score de chance est égal
à 0 devient un personnage non joueur. Il faut donc au minimum 2 points de chance »), and
``keep`` (the default). The params
``reroll`` and ``sacrifice_chance`` remain as standing orders given before the dice: each
is used only if the pair fails, as the player would after seeing it. A roll still failed
once the player's luck is decided stays open for the GM (« le MJ a plusieurs choix »):
``success_at_cost`` (« réussi, mais… »), ``success_at_cost_hp`` (that cost paid in hit
points) or ``fail`` (the default), choices marked ``gm: true`` that only a GM may take.
The param ``success_at_cost`` remains the same decision given before the dice.

Character sheet (:data:`SHEET`): characteristics and métiers (maps of name → rating), the
Chance characteristic and hit points. Rolled as a character, the level is the chosen
characteristic plus the chosen métier; the reroll and the sacrifice each spend a point of
Chance, a "réussi, mais…" paid in hit points its loss.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sidecar import hookimpl
from sidecar.dice import Dice
from sidecar.model import Outcome, Roll, label
from sidecar.probability import POINT, Dist, highest_of, odds_reply
from sidecar.protocol.errors import invalid_param
from sidecar.rules import KIND_LABELS, common, heading, name_params, score_kind
from sidecar.rulesets.sheets import (
    add_spend,
    counter,
    field,
    pick,
    refuse_sheet_override,
    refuse_sheet_param,
    required_without_sheet,
)

__version__ = "1.1"

NAME = "ladder"

#: level → (smaller die, larger die, tier)
LADDER: dict[int, tuple[int, int, str]] = {
    1: (4, 4, "Débutant"), 2: (4, 6, "Débutant"), 3: (6, 6, "Débutant"),
    4: (6, 8, "Initié"), 5: (8, 8, "Initié"), 6: (8, 10, "Initié"),
    7: (10, 10, "Expert"), 8: (10, 12, "Expert"), 9: (12, 12, "Expert"),
}
#: Each tier's English name (the seed names them in French only; ``result.tier`` keeps the
#: French name, the English text says these): an English reader reads English only.
TIERS_EN = {"Incapacité": "Incapable", "Débutant": "Beginner", "Initié": "Initiate",
            "Expert": "Expert", "Maître": "Master"}
#: A success by this much or more is critical (RULES.md §2: differential 7+).
CRITICAL_AT = 7
DIFFICULTIES = {"Facile": 3, "Modéré": 5, "Pas évident": 7, "Difficile": 9,
                "Très difficile": 11, "Presque impossible": 13}
#: Each difficulty's English name, for English texts (the seed's French names stay the
#: ones a request may send, ``labels``; docs/RULESETS.md records both).
DIFFICULTIES_EN = {"Facile": "Easy", "Modéré": "Moderate", "Pas évident": "Not obvious",
                   "Difficile": "Hard", "Très difficile": "Very hard",
                   "Presque impossible": "Nearly impossible"}

PARAMS: dict[str, dict[str, Any]] = {
    "level": {
        "type": "int", "min": -20, "max": 40,
        "description": label("Niveau : caractéristique + métier (déjà additionnés ; "
                             "obligatoire sans personnage)", "Level: characteristic + "
                             "profession (already added; required without a character)"),
    },
    "characteristic": {
        "type": "string", "max_length": 64,
        "description": label("En tant que personnage : la caractéristique de la fiche qui "
                             "s'ajoute au niveau (geste, acuité, chance…)", "As a character: "
                             "the sheet's characteristic added to the level (its name on the "
                             "sheet: geste, acuité…)"),
    },
    "metier": {
        "type": "string", "max_length": 64,
        "description": label("En tant que personnage : le métier de la fiche qui s'ajoute "
                             "au niveau (aucun si l'action ne correspond à aucun métier)",
                             "As a character: the sheet's profession added to the level "
                             "(none when the action fits no profession)"),
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
        "label_names": {name: {"fr": name, "en": DIFFICULTIES_EN[name]} for name in DIFFICULTIES},
        "description": label("Difficulté : score à atteindre, ou Facile, Modéré, Pas évident, "
                             "Difficile, Très difficile, Presque impossible",
                             "Difficulty: score to reach: " + ", ".join(
                                 f"{DIFFICULTIES_EN[name]} {value}"
                                 for name, value in DIFFICULTIES.items())),
    },
    "reroll": {
        "type": "bool", "default": False,
        "description": label("Décidé d'avance : si la paire échoue, dépenser un point de "
                             "chance (Chance ≥ 2) pour relancer (le nouveau score remplace "
                             "l'ancien). Sans ce paramètre, la relance est proposée après un "
                             "échec. Pour les chances : celles du joueur qui relance un échec",
                             "Decided beforehand: if the pair fails, spend a Chance point "
                             "(Chance ≥ 2) to reroll (the new score replaces the old). Without "
                             "it, the "
                             "reroll is offered after a failure. For odds: those of a "
                             "player who rerolls a failure"),
    },
    "sacrifice_chance": {
        "type": "bool", "default": False,
        "description": label("Décidé d'avance : sacrifier 1 point de Chance pour réussir si "
                             "le jet échoue (Chance ≥ 2). Sans ce paramètre, le sacrifice "
                             "est proposé après un échec", "Decided beforehand: sacrifice 1 "
                             "Chance point to succeed if the roll fails (Chance ≥ 2). "
                             "Without it, the sacrifice is offered after a failure"),
    },
    "chance": {
        "type": "int", "min": 0, "max": 20,
        "description": label("Caractéristique Chance actuelle (pour une relance ou un "
                             "sacrifice)", "Current Chance characteristic (for a reroll or "
                             "a sacrifice)"),
    },
    "success_at_cost": {
        "type": "bool", "default": False,
        "description": label("Décidé d'avance : « réussi, mais… », le MJ accorde la "
                             "réussite contre un coût. Sans ce paramètre, le MJ le choisit "
                             "après un échec", "Decided beforehand: \"success, but…\", the "
                             "GM grants success at a cost. Without it, the GM chooses it "
                             "after a failure"),
    },
    "cost_in_hp": {
        "type": "bool", "default": False,
        "description": label("Avec « réussi, mais… » décidé d'avance : le coût est payé "
                             "en points de vie (perte mineure : 1 ; perte importante : le "
                             "différentiel)", "With \"success, but…\" decided beforehand: "
                             "the cost is paid in hit points (minor loss: 1; major loss: the "
                             "differential)"),
    },
}


# Short names the forms show (the web table, a VTT).
name_params(PARAMS, {
    "level": ("Niveau", "Level"),
    "advantages": ("Avantages", "Advantages"),
    "disadvantages": ("Désavantages", "Disadvantages"),
    "difficulty": ("Difficulté", "Difficulty"),
    "reroll": ("Relance (point de chance)", "Reroll (Chance point)"),
    "sacrifice_chance": ("Sacrifier 1 point de Chance", "Sacrifice 1 Chance point"),
    "chance": ("Chance actuelle", "Current Chance"),
    "success_at_cost": ("Réussi, mais…", "Success, but…"),
    "characteristic": ("Caractéristique", "Characteristic"),
    "metier": ("Métier", "Profession"),
    "cost_in_hp": ("Coût en points de vie", "Cost in hit points"),
})

# What a form shows at once is what a roll needs (the level or the sheet's characteristic
# and métier, advantages, the difficulty); what is decided beforehand rather than after a
# failure — where the roll offers it anyway — folds behind « plus d'options » (``more``).
for _key in ("reroll", "sacrifice_chance", "chance", "success_at_cost", "cost_in_hp"):
    PARAMS[_key]["more"] = True

#: The character sheet of the ladder (RULES.md §2; seed 001).
SHEET: dict[str, dict[str, Any]] = {
    "caracteristiques": field(
        "map", "Caractéristiques", "Characteristics", "Caractéristiques et leur score "
        "(geste, acuité…) ; la Chance a son propre champ", "Characteristics and their "
        "score (named as on the sheet: geste, acuité…); Chance has its own field",
        values="int", default={},
        item={"min": 0, "max": 20}, max_items=20),
    "metiers": field(
        "map", "Métiers", "Professions", "Métiers et leur valeur (ex. Bandit de grand "
        "chemin 4, Chanteur 1)", "Professions and their rating (e.g. Bandit de grand "
        "chemin 4, Chanteur 1)", values="int", default={}, item={"min": 0, "max": 20},
        max_items=20),
    "chance": counter(
        "Chance", "Chance", "Caractéristique Chance, ses points de chance : un point "
        "relance une action ou la fait réussir (seulement à 2 ou plus ; à 0, le personnage "
        "devient un PNJ)", "Chance characteristic, its luck points: one rerolls an action "
        "or makes it succeed (only at 2 or more; at 0 the character becomes an NPC)",
        default=2, high=20),
    "pv": counter(
        "Points de vie", "Hit points", "Points de vie (la graine n'en donne pas le "
        "nombre de départ)", "Hit points (the seed gives no starting number)",
        default=10, high=99),
}


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


@hookimpl
def sidecar_sheet(ruleset: str) -> dict[str, Any] | None:
    return SHEET if ruleset == NAME else None


def base_level(params: dict[str, Any], sheet: dict[str, Any] | None) -> int:
    """The level before advantages: the request's ``level``, else the character's chosen
    characteristic plus its chosen métier (0 without one)."""
    if params.get("level") is not None:
        return params["level"]
    if sheet is None:
        raise required_without_sheet("level")
    name = params.get("characteristic")
    if not name:
        raise invalid_param("characteristic", "choose the characteristic (or give the "
                            "level)", fr="choisissez la caractéristique (ou indiquez le "
                            "niveau)")
    if name.casefold() == "chance" and "chance" not in {
            k.casefold() for k in sheet.get("caracteristiques") or {}}:
        level = sheet["chance"]
    else:
        level = pick(sheet, "caracteristiques", name, "characteristic")
    if params.get("metier"):
        level += pick(sheet, "metiers", params["metier"], "metier")
    return level


def chance_of(params: dict[str, Any], sheet: dict[str, Any] | None) -> int | None:
    """The Chance characteristic: the request's, else the character's."""
    if params.get("chance") is not None or sheet is None:
        return params.get("chance")
    return sheet.get("chance")


def _check(params: dict[str, Any], sheet: dict[str, Any] | None = None) -> None:
    """The standing orders, refused before the dice when Chance cannot pay them: each a
    point, never the last (« Il faut donc au minimum 2 points de chance »), so both need
    3 (the reroll's point is spent before the sacrifice's)."""
    chance = chance_of(params, sheet)
    if params["reroll"] and chance is not None and chance < 2:
        raise invalid_param("reroll", "a Chance point rerolls only while Chance ≥ 2",
                            fr="un point de chance ne relance que tant que la Chance est ≥ 2")
    if params["reroll"] and params["sacrifice_chance"] and chance is not None and chance < 3:
        raise invalid_param("sacrifice_chance", "after a standing reroll, only allowed "
                            "while Chance ≥ 3 (each spends a point, never the last)",
                            fr="après une relance décidée d'avance, permis seulement tant que "
                               "la Chance est ≥ 3 (chacune coûte un point, jamais le dernier)")
    if params["sacrifice_chance"]:
        chance = chance_of(params, sheet)
        if chance is None:
            raise invalid_param("chance", "is required to sacrifice a Chance point",
                                fr="est obligatoire pour sacrifier un point de Chance")
        if chance < 2:
            raise invalid_param("sacrifice_chance", "only allowed while Chance ≥ 2",
                                fr="permis seulement tant que la Chance est ≥ 2")


def _pair(dice: Dice, level: int, attempt: int) -> int:
    """Roll a level's pair (smaller die first), mark the kept die, return the score."""
    small, large, bonus, _ = dice_for(level)
    first = dice.roll(small, attempt=attempt)
    second = dice.roll(large, attempt=attempt)
    kept = dice.rolled[-2] if first >= second else dice.rolled[-1]
    kept["kept"] = True
    return max(first, second) + bonus


#: What a failed pair offers the player (contract §7), by choice name.
CHOICES: dict[str, dict[str, Any]] = {
    "reroll": {"name": "reroll", "label": label(
        "Relancer (1 point de chance ; le nouveau score remplace l'ancien)",
        "Reroll (1 Chance point; the new score replaces the old)"), "dice": 2},
    "sacrifice": {"name": "sacrifice", "label": label(
        "Sacrifier 1 point de Chance : l'action réussit",
        "Sacrifice 1 Chance point: the action succeeds"), "dice": 0},
    "keep": {"name": "keep", "label": label("Garder l'échec", "Keep the failure"),
             "dice": 0},
}

#: The same luck without a character: no sheet pays the point, the GM counts it by hand
#: (docs/RULESETS.md), and the label says so rather than seem to spend it from nowhere.
BY_HAND: dict[str, dict[str, str]] = {
    "reroll": label("Relancer (1 point de chance du personnage, décompté à la main par le "
                    "MJ ; le nouveau score remplace l'ancien)",
                    "Reroll (1 of the character's Chance points, counted by hand by the "
                    "GM; the new score replaces the old)"),
    "sacrifice": label("Sacrifier 1 point de Chance du personnage (décompté à la main par "
                       "le MJ) : l'action réussit",
                       "Sacrifice 1 of the character's Chance points (counted by hand by "
                       "the GM): the action succeeds"),
}

#: The GM's choices on a roll still failed once the player's luck is decided (seed: « le
#: MJ a plusieurs choix »): ``gm: true``, only a GM may take them (PROTOCOL.md §7.6).
GM_CHOICES = ("success_at_cost", "success_at_cost_hp", "fail")


def gm_choices(result: dict[str, Any], sheet: dict[str, Any] | None
               ) -> list[dict[str, Any]]:
    """The GM's « réussi, mais… » (its cost by differential in the label), paid in hit
    points as a character when the cost is a loss, or « l'action est ratée »."""
    differential = result["differential"]
    fr, en = cost_of(differential)
    choices = [{"name": "success_at_cost", "gm": True, "dice": 0, "label": label(
        f"MJ : réussi, mais… ({fr})", f"GM: success, but… ({en})")}]
    if sheet is not None and differential >= 2:
        lost = differential if differential >= 4 else 1
        choices.append({"name": "success_at_cost_hp", "gm": True, "dice": 0, "label": label(
            f"MJ : réussi, mais… ({fr} : {lost} PV)",
            f"GM: success, but… ({en}: {lost} HP)")})
    choices.append({"name": "fail", "gm": True, "dice": 0, "label": label(
        "MJ : l'action est ratée", "GM: the action fails")})
    return choices


def offer(outcome: Outcome, params: dict[str, Any], sheet: dict[str, Any] | None) -> None:
    """Open a failed roll with what luck may still do, each while Chance ≥ 2 (without a
    character and without ``chance`` the GM checks it by hand): a reroll (one per action,
    not at level 0) and the sacrifice. With no luck left to decide, the GM's choice
    (:func:`offer_gm`)."""
    r = outcome.result
    if r["success"]:
        return
    names = []
    chance = chance_of(params, sheet)
    lucky = (chance is None and sheet is None) or (chance is not None and chance >= 2)
    if r["level"] > 0 and not r.get("rerolled") and lucky:
        names.append("reroll")
    if lucky:
        names.append("sacrifice")
    if names:
        outcome.choices = [dict(CHOICES[name]) for name in (*names, "keep")]
        if sheet is None:  # no sheet pays: say whose point it is (RULESETS.md)
            for choice in outcome.choices:
                if choice["name"] in BY_HAND:
                    choice["label"] = BY_HAND[choice["name"]]
        outcome.default = "keep"
    else:
        offer_gm(outcome, sheet)


def offer_gm(outcome: Outcome, sheet: dict[str, Any] | None) -> None:
    """Open a roll still failed for the GM's « réussi, mais… »; the default (time running
    out) leaves the failure: « si le MJ ne décide pas d'intervenir, le personnage en subit
    les conséquences »."""
    if outcome.result["success"]:
        return
    outcome.choices, outcome.default = gm_choices(outcome.result, sheet), "fail"


@hookimpl
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome:
    p = roll.params
    # A player may type only the Chance its sheet gives (docs/RULESETS.md): it decides
    # whether a reroll or a sacrifice is allowed, so it is checked before them.
    if roll.sheet is not None:
        refuse_sheet_override(roll, "chance", PARAMS["chance"]["label"],
                              roll.sheet.get("chance"))
    _check(p, roll.sheet)
    # A player may type only the level its sheet gives (docs/RULESETS.md).
    refuse_sheet_param(roll, "level", PARAMS["level"]["label"], "characteristic",
                       lambda params: base_level(params, roll.sheet),
                       offered="caracteristiques")
    level = max(0, base_level(p, roll.sheet) + p["advantages"] - p["disadvantages"])
    _, _, bonus, tier = dice_for(level)
    score = 0
    rerolled = False
    first_score = None
    if level > 0:
        score = _pair(dice, level, 1)
        if p["reroll"] and score < p["difficulty"]:
            # A standing order: used only on a failed pair, as the player would decide.
            for die in dice.rolled[:2]:
                die["replaced"] = True
            first_score, score, rerolled = score, _pair(dice, level, 2), True
    failed = score < p["difficulty"]
    result = judge(score, p["difficulty"], level=level, tier=tier,
                   success_at_cost=p["success_at_cost"] and not p["sacrifice_chance"],
                   sacrificed=p["sacrifice_chance"] and failed)
    result["rerolled"] = rerolled
    if rerolled:
        result["first_score"] = first_score
    if bonus:
        result["bonus"] = bonus
    spend: dict[str, int] = {}
    if roll.sheet is not None:
        spend = spends(p, result, roll.sheet, rerolled=rerolled)
    outcome = Outcome(result=result, dice=dice.rolled, spend=spend)
    offer(outcome, *_after_reroll(p, roll.sheet) if rerolled else (p, roll.sheet))
    return outcome


def _after_reroll(params: dict[str, Any], sheet: dict[str, Any] | None
                  ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The params and sheet as a reroll leaves them: a point of Chance fewer (the
    character's, or the ``chance`` typed without one), for what is offered next."""
    if sheet is not None:
        return params, {**sheet, "chance": sheet.get("chance", 0) - 1}
    if params.get("chance") is not None:
        return {**params, "chance": params["chance"] - 1}, None
    return params, None


def _carry(old: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """What a decided result keeps of the open one (the reroll's trace, the bonus)."""
    result["rerolled"] = bool(old.get("rerolled"))
    for name in ("first_score", "bonus"):
        if name in old and name not in result:
            result[name] = old[name]
    return result


def hp_loss(result: dict[str, Any], sheet: dict[str, Any]) -> int:
    """The hit points a « réussi, mais… » paid in HP takes: 1 for a perte mineure, the
    differential for a perte importante, none for an incident; stopping at 0."""
    loss = result.get("loss", 1 if result["consequence"]["fr"] == "perte mineure" else 0)
    return min(loss, sheet.get("pv", 0))


@hookimpl
def sidecar_react(roll: Roll, outcome: Outcome, choice: str, dice: Dice) -> Outcome:
    """A decision after a failed pair: ``reroll`` draws a new pair that replaces the
    score (1 point of Chance), ``sacrifice`` makes the action succeed (1 Chance), ``keep``
    leaves the failure — to the GM, who then takes ``success_at_cost`` (« réussi,
    mais… », its cost told), ``success_at_cost_hp`` (that cost paid in hit points) or
    ``fail``. As a character the sheet pays; without one, nothing is spent. The outcome
    carries every die of the roll (a replaced pair marked ``replaced``)."""
    p, old = roll.params, outcome.result
    level = old["level"]
    _, _, bonus, tier = dice_for(level)
    if choice == "keep":
        kept = Outcome(result=old, dice=outcome.dice)
        offer_gm(kept, roll.sheet)
        return kept
    if choice == "fail":
        return Outcome(result=old, dice=outcome.dice)
    if choice in ("success_at_cost", "success_at_cost_hp"):
        result = _carry(old, judge(old["score"], old["difficulty"], level=level, tier=tier,
                                   success_at_cost=True))
        spend: dict[str, int] = {}
        if choice == "success_at_cost_hp" and roll.sheet is not None:
            lost = hp_loss(result, roll.sheet)
            result["hp_lost"] = lost
            add_spend(spend, "pv", lost)
        return Outcome(result=result, dice=outcome.dice, spend=spend)
    if choice == "sacrifice":
        chance = chance_of(p, roll.sheet)
        if chance is not None and chance < 2:  # the sheet changed since the roll
            raise invalid_param("chance", "a Chance point is sacrificed only while Chance "
                                "≥ 2", fr="un point de Chance ne se sacrifie que tant que "
                                "la Chance est ≥ 2")
        result = judge(old["score"], old["difficulty"], level=level, tier=tier,
                       sacrificed=True)
        spend = {"chance": 1} if roll.sheet is not None else {}
    else:  # reroll
        for die in outcome.dice:
            die["replaced"] = True
        score = _pair(dice, level, 2)
        result = judge(score, old["difficulty"], level=level, tier=tier)
        result["first_score"] = old["score"]
        spend = {"chance": 1} if roll.sheet is not None else {}
    _carry(old, result)
    result["rerolled"] = choice == "reroll" or result["rerolled"]
    # Every die of the roll as it now stands (a replaced pair marked so, the new one last),
    # as a standing reroll shows them.
    decided = Outcome(result=result, dice=outcome.dice + dice.rolled, spend=spend)
    if choice == "reroll":
        # The sacrifice may still save the new pair, with the Chance the reroll left.
        offer(decided, *_after_reroll(p, roll.sheet))
    return decided


@hookimpl
def sidecar_max_spend(roll: Roll, choice: str | None) -> dict[str, int] | None:
    """The most a roll as a character could spend, declared before its dice (the host
    refuses it then when the sheet lacks it): the standing orders' Chance points (the
    reroll's and the sacrifice's), counted even though a success spends neither — else a
    failure alone would be refused, and the player could roll until the pair succeeds. A decision
    declares its own (``reroll``, ``sacrifice``). Hit points are the dice's: taken only
    as far as the sheet holds (:func:`hp_loss`)."""
    if choice is None:
        p = roll.params
        most = {"chance": (1 if p["reroll"] else 0) + (1 if p["sacrifice_chance"] else 0)}
    else:
        most = {"chance": 1 if choice in ("reroll", "sacrifice") else 0}
    return {name: amount for name, amount in most.items() if amount} or None


def spends(params: dict[str, Any], result: dict[str, Any], sheet: dict[str, Any], *,
           rerolled: bool) -> dict[str, int]:
    """What a roll made as a character takes from its sheet: a point of Chance for the
    reroll, another when the sacrifice saved the roll (both the player's choice,
    declared before the dice by :func:`sidecar_max_spend`: a sheet without one answers
    ``insufficient`` before any die), and, for a "réussi, mais…" paid in hit
    points, the loss (1 for a minor loss, the differential for a major one), which stops
    at 0 hit points."""
    spend: dict[str, int] = {}
    if rerolled:
        add_spend(spend, "chance", 1)
    if result["chance_sacrificed"]:
        add_spend(spend, "chance", 1)
    if params["cost_in_hp"] and result["success_at_cost"]:
        lost = hp_loss(result, sheet)
        add_spend(spend, "pv", lost)
        result["hp_lost"] = lost
    return spend


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
    if r.get("rerolled"):
        dice_text += (f", {'relancé' if fr else 'rerolled'} "
                      f"({r.get('first_score')} → {r['score']})")
    tier = r["tier"] if fr else TIERS_EN.get(r["tier"], r["tier"])
    line = (f"{heading(roll, locale=locale)}{'niveau' if fr else 'level'} {r['level']} ({tier}), "
            f"{dice_text} → {r['score']} {'contre' if fr else 'vs'} {r['difficulty']} → "
            f"{r['label']['fr' if fr else 'en']}")
    if r.get("consequence") and not r["success_at_cost"]:
        line += f" ({r['consequence']['fr' if fr else 'en']})"
    if r.get("hp_lost"):
        line += f" (−{r['hp_lost']} {'PV' if fr else 'HP'})"
    return line


@lru_cache(maxsize=1024)
def exact_odds(level: int, difficulty: int, rescued: bool,
               reroll: bool = False) -> dict[str, Any]:
    """Exact odds of a ladder roll. ``reroll``: the player spends a Chance point on a failed
    pair — the best play, since a success offers no reroll — so a failure is replaced by
    a whole new pair's score; ``rescued`` (Chance sacrificed or "réussi, mais…") turns
    every failure left into a narrow success."""
    small, large, bonus, _ = dice_for(level)
    scores = POINT if level == 0 else highest_of(small, large).shift(bonus)
    if reroll and level > 0:
        failed = sum(w for v, w in scores.counts.items() if v < difficulty)
        counts = {v: (w * scores.total if v >= difficulty else 0) + failed * w
                  for v, w in scores.counts.items()}
        scores = Dist({v: w for v, w in counts.items() if w}, scores.total ** 2)
    kinds = scores.map(lambda score: kind_of(score, difficulty, rescued)).counts
    return odds_reply(kinds, scores.total, "score", scores.counts.items())


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    p = roll.params
    _check(p, roll.sheet)
    level = max(0, base_level(p, roll.sheet) + p["advantages"] - p["disadvantages"])
    return exact_odds(level, p["difficulty"], p["success_at_cost"] or p["sacrifice_chance"],
                      p["reroll"])
